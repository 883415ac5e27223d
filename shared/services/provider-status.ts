import type { CallOutcome } from '../domain/call-outcome.ts';
import { parseRunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import * as runs from '../repositories/runs.ts';
import type { StatusCallback } from '../telephony/provider.ts';
import { completeCall } from './call-completion.ts';

/** Provider statuses that end a call without a conversation. */
const UNANSWERED: Partial<Record<StatusCallback['status'], CallOutcome>> = {
  busy: 'busy',
  'no-answer': 'no_answer',
  voicemail: 'voicemail',
  failed: 'failed',
};

/**
 * Applies a provider status callback. Calls that were not answered end here. An answered call is
 * ended by the media service, which saves the recording and transcript first; a `completed`
 * callback for a call whose media stream never started ends it as failed (nothing to save).
 */
export async function recordProviderStatus(callback: StatusCallback): Promise<void> {
  const ref = parseRunRef(callback.custom_parameters.run_ref);
  if (!ref) {
    logger.warn('Status callback for an unknown run reference', { runRef: callback.custom_parameters.run_ref });
    return;
  }
  const outcome = UNANSWERED[callback.status];
  if (outcome) {
    await completeCall({ ref, outcome, endedAt: callback.timestamp, reason: `Provider reported ${callback.status}` });
    return;
  }
  if (callback.status === 'completed') {
    const run = await runs.getRun(ref.organizationId, ref.agentId, ref.runId);
    if (run?.status === 'in_progress' && !run.answered_at) {
      await completeCall({ ref, outcome: 'failed', endedAt: callback.timestamp, reason: 'The call ended before the media stream started' });
    }
  }
}
