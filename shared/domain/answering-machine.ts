import type { CallOutcome } from './call-outcome.ts';
import type { MachineVerdict } from './run.ts';

/**
 * The one rule between the detection verdict and the call's ending, whichever comes first.
 *
 * - The first verdict recorded on the run stays (a later one, e.g. Telnyx's greeting end after its
 *   detection end, or a retried webhook, changes nothing); a verdict after the run has ended is
 *   ignored: an ending that happened is never rewritten.
 * - The ending reads the verdict recorded before it, atomically (the write that ends the run is
 *   conditioned on the verdict it read): an answered call that reached a machine ends `voicemail`,
 *   whether the media stream closed (`completed`), the call failed, or nothing streamed at all.
 * - Outcomes of calls nobody answered (busy, no answer) are kept as reported.
 */
export function endingOutcome(reported: CallOutcome, verdict: MachineVerdict | null | undefined): CallOutcome {
  if (verdict === 'machine' && (reported === 'completed' || reported === 'failed')) return 'voicemail';
  return reported;
}

/** What the platform does when a detection event arrives. */
export type MachineAction = 'none' | 'hang_up' | 'wait_for_greeting_end' | 'leave_message';

/**
 * The agent's choice on a machine: without a voicemail message the call is hung up as soon as a
 * machine is recognised; with one, the message is left once the greeting is over (after the beep,
 * or the greeting's end when the machine has no beep), then the call is hung up. A machine whose
 * greeting's end will never be reported (a fax) is hung up.
 */
export function machineAction(
  verdict: MachineVerdict,
  greeting: 'ended' | 'pending' | 'unknown',
  voicemailMessage: string | null | undefined,
): MachineAction {
  if (verdict !== 'machine') return 'none';
  if (!voicemailMessage) return 'hang_up';
  if (greeting === 'ended') return 'leave_message';
  return greeting === 'pending' ? 'wait_for_greeting_end' : 'hang_up';
}

/** One event bearing on a call's outcome, in the order it was applied to the run. */
export type OutcomeEvent = { verdict: MachineVerdict } | { ending: CallOutcome };

/**
 * The run's outcome after these events, applied in order under the rule above (what the run's
 * conditional writes carry out): undefined while the call has not ended.
 */
export function settleOutcome(events: readonly OutcomeEvent[]): CallOutcome | undefined {
  let verdict: MachineVerdict | undefined;
  for (const event of events) {
    if ('ending' in event) return endingOutcome(event.ending, verdict);
    verdict ??= event.verdict;
  }
  return undefined;
}
