import { machineAction } from '../domain/answering-machine.ts';
import type { CallOutcome } from '../domain/call-outcome.ts';
import { parseRunRef, type RunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import { getRun } from '../repositories/runs-read.ts';
import { recordMachineVerdict, updateActiveRun } from '../repositories/runs-lifecycle.ts';
import type {
  MachineDetectionEvent,
  ProviderCallEvent,
  ProviderCallStatus,
  TelephonyAdapter,
} from '../telephony/adapter.ts';
import { completeCall } from './call-completion.ts';
import { callerLeftTransfer, transferLeg } from './call-transfer.ts';

/** Provider statuses that end a call without a conversation. */
const UNANSWERED: Partial<Record<ProviderCallStatus, CallOutcome>> = {
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
};

/**
 * Applies a verified provider event. Calls that were not answered end here. An answered call is
 * ended by the media service, which saves the recording and transcript first; a `completed` event
 * for a call whose media stream never started ends it here (nothing to save). Answering-machine
 * detection results are recorded on the run and acted on (machineDetected); the end of the
 * voicemail message hangs the call up.
 */
export async function recordProviderStatus(event: ProviderCallEvent, adapter: TelephonyAdapter): Promise<void> {
  const ref = parseRunRef(event.runRef);
  if (!ref) {
    logger.warn('Status callback for an unknown run reference', { runRef: event.runRef });
    return;
  }
  if ('verdict' in event) return machineDetected(ref, event, adapter);
  if ('messageSpoken' in event) return adapter.calls.hangUp(event.callId);
  if ('transferLeg' in event) return transferLeg(event, adapter);
  const outcome = UNANSWERED[event.status];
  if (outcome) {
    await completeCall({ ref, outcome, endedAt: event.timestamp, reason: `Provider reported ${event.status}` });
    return;
  }
  if (event.status === 'completed') {
    const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
    // A call that ended while being transferred (or before the agent took it back).
    if (run?.status === 'in_progress' && run.transfer) await callerLeftTransfer(run, event.timestamp);
    else if (run?.status === 'in_progress' && !run.answered_at) {
      await completeCall({
        ref,
        outcome: 'failed',
        endedAt: event.timestamp,
        reason: 'The call ended before the media stream started',
      });
    }
  }
}

/**
 * An answering-machine detection result: the first verdict is recorded on the run (the ending
 * reads it: domain/answering-machine.ts), then the agent's choice is carried out: hang up, or
 * leave its voicemail message once the greeting is over (the provider stops the stream, speaks
 * the message and the call is hung up; the stream's end ends the run as `voicemail`).
 */
async function machineDetected(ref: RunRef, event: MachineDetectionEvent, adapter: TelephonyAdapter): Promise<void> {
  const heard = `Answering-machine detection: ${event.detail || event.verdict}${event.beep ? ' (beep)' : ''}`;
  const recorded = await recordMachineVerdict(ref, event.verdict, {
    timestamp: event.timestamp,
    level: 'INFO',
    message: heard,
  });
  // Already recorded (a machine's greeting end after its verdict, a retried webhook) or ended.
  const run = recorded ?? (await getRun(ref.organizationId, ref.agentId, ref.runId));
  if (!run || run.status !== 'in_progress') {
    logger.info('Answering-machine result after the call ended: the outcome stays', { runRef: event.runRef });
    return;
  }
  const verdict = run.answered_by ?? event.verdict;
  const action = machineAction(verdict, event.greeting, run.voicemail_message);
  if (action === 'hang_up') {
    await updateActiveRun(
      ref,
      {},
      { timestamp: event.timestamp, level: 'INFO', message: 'Answering machine: hanging up' },
    );
    await adapter.calls.hangUp(event.callId);
  } else if (action === 'leave_message') {
    // Logged before the provider is asked: the stream's end (which ends the run) follows the request.
    await updateActiveRun(
      ref,
      {},
      {
        timestamp: event.timestamp,
        level: 'INFO',
        message: `Leaving the voicemail message: ${run.voicemail_message}`,
      },
    );
    await adapter.calls.leaveVoicemail(event.callId, run.voicemail_message!);
  }
}
