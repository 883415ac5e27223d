import type { CallOutcome } from '../domain/call-outcome.ts';
import { parseRunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import * as runs from '../repositories/runs.ts';
import type { ProviderCallStatus, ProviderStatusEvent, TelephonyAdapter } from '../telephony/adapter.ts';
import { completeCall } from './call-completion.ts';

/** Provider statuses that end a call without a conversation. */
const UNANSWERED: Partial<Record<ProviderCallStatus, CallOutcome>> = {
  busy: 'busy',
  'no-answer': 'no_answer',
  voicemail: 'voicemail',
  failed: 'failed',
};

/**
 * Applies a verified provider status event. Calls that were not answered end here; an answering
 * machine (AMD) ends the call as `voicemail` and hangs it up. An answered call is ended by the
 * media service, which saves the recording and transcript first; a `completed` event for a call
 * whose media stream never started ends it as failed (nothing to save).
 */
export async function recordProviderStatus(event: ProviderStatusEvent, adapter: TelephonyAdapter): Promise<void> {
  const ref = parseRunRef(event.runRef);
  if (!ref) {
    logger.warn('Status callback for an unknown run reference', { runRef: event.runRef });
    return;
  }
  const outcome = UNANSWERED[event.status];
  if (outcome) {
    const ended = await completeCall({
      ref,
      outcome,
      endedAt: event.timestamp,
      reason: `Provider reported ${event.status}`,
    });
    if (ended && event.status === 'voicemail') await adapter.hangUp(event.callId);
    return;
  }
  if (event.status === 'completed') {
    const run = await runs.getRun(ref.organizationId, ref.agentId, ref.runId);
    if (run?.status === 'in_progress' && !run.answered_at) {
      await completeCall({
        ref,
        outcome: 'failed',
        endedAt: event.timestamp,
        reason: 'The call ended before the media stream started',
      });
    }
  }
}
