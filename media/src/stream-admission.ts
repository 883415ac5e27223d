/**
 * Who may stream a call's media: only the provider leg of a call the platform dialed or answered,
 * proven by the stream credential minted for that run (shared/telephony/stream-token.ts), and
 * only once per run, while the run waits for its media. The admitting task notes itself on the run
 * (`mediaHost`): the call's listeners and control commands are sent there.
 */
import { parseRunRef } from '../../shared/domain/run-ref.ts';
import { SESSION_MODES } from '../../shared/domain/browser-sessions.ts';
import type { RunRecord } from '../../shared/domain/run.ts';
import { claimMediaStream, resumeMediaStream, startSession } from '../../shared/repositories/runs-lifecycle.ts';
import { purposeRef } from '../../shared/domain/live-call-access.ts';
import { logger } from '../../shared/observability/logger.ts';
import { noteTextLine } from '../../shared/repositories/text-lines.ts';
import { completeCall } from '../../shared/services/call-completion.ts';
import { hangUpAtProvider } from '../../shared/services/provider-hangup.ts';
import { checkStreamToken } from '../../shared/telephony/stream-token.ts';
import type { AdmissionResult, StreamClaim } from './streams/websocket-server.ts';

/**
 * Admits a stream. `atCapacity` (the task holds its most calls) refuses a genuine one cleanly: its
 * run ends `failed` with the reason in its logs, and a call its provider would keep up without
 * the stream (Telnyx) is hung up, rather than every call on the task degrading. Only a valid
 * credential can end a run so: a forged stream is refused without touching anything.
 */
export async function admitStream(
  claim: StreamClaim,
  mediaHost: string,
  now = Date.now(),
  atCapacity?: string,
): Promise<AdmissionResult<RunRecord>> {
  const ref = claim.runRef ? parseRunRef(claim.runRef) : undefined;
  if (!claim.runRef || !ref) return { accepted: false, reason: 'no valid run reference' };
  if (!claim.streamToken) return { accepted: false, reason: 'no stream credential' };
  const token = await checkStreamToken(claim.runRef, claim.streamToken, now);
  // The call given back to the agent after a transfer nobody took: its own credential, once.
  if (
    token === 'wrong_run' &&
    (await checkStreamToken(purposeRef('resume', claim.runRef), claim.streamToken, now)) === 'valid'
  ) {
    const resumed = await resumeMediaStream(ref, new Date(now).toISOString(), mediaHost);
    if (!resumed) return { accepted: false, reason: 'the run is not waiting for the agent to take its call back' };
    return { accepted: true, runRef: claim.runRef, admitted: resumed };
  }
  if (token !== 'valid') return { accepted: false, reason: `stream credential ${token}` };
  if (atCapacity) {
    const reason = `Call refused: ${atCapacity}`;
    await completeCall({ ref, outcome: 'failed', endedAt: new Date(now).toISOString(), reason });
    if (claim.callSid) await hangUpAtProvider(ref, claim.callSid, atCapacity, { onlyWhereTheStreamKeepsTheCall: true });
    return { accepted: false, reason: atCapacity };
  }
  // The one conditional write: the run is in progress and has no stream yet.
  const run = await claimMediaStream(ref, new Date(now).toISOString(), mediaHost);
  if (!run)
    return { accepted: false, reason: 'the run is not waiting for media (ended, unknown, or already streaming)' };
  // A text from the caller now finds this call (shared/services/inbound-texts.ts); the greeting does not wait for it.
  if (run.phone_number)
    void noteTextLine(ref, run.phone_number, run.answered_at ?? new Date(now).toISOString()).catch((error: unknown) =>
      logger.warn('The call was not noted for its caller’s texts', { runRef: claim.runRef, error: String(error) }),
    );
  return { accepted: true, runRef: claim.runRef, admitted: run };
}

/**
 * Admits a browser or chat session: the credential the conversation was created with, for a run
 * of a session mode that has not started. Its one conditional write starts the run and takes a
 * channel, so a credential works once: a second connection, or a replay, is refused. A full task
 * refuses before anything is written (the client may connect again to another task).
 */
export async function admitBrowserSession(
  claim: StreamClaim,
  mediaHost: string,
  now = Date.now(),
  atCapacity?: string,
): Promise<AdmissionResult<RunRecord>> {
  const ref = claim.runRef ? parseRunRef(claim.runRef) : undefined;
  if (!claim.runRef || !ref) return { accepted: false, reason: 'no valid run reference', status: 400 };
  if (!claim.streamToken) return { accepted: false, reason: 'no session credential', status: 401 };
  const token = await checkStreamToken(claim.runRef, claim.streamToken, now);
  if (token !== 'valid') return { accepted: false, reason: `session credential ${token}`, status: 401 };
  if (atCapacity) return { accepted: false, reason: atCapacity, status: 503 };
  const run = await startSession(ref, SESSION_MODES, new Date(now).toISOString(), mediaHost);
  if (run === 'at_limit')
    return { accepted: false, reason: 'the organization is at its concurrent call limit', status: 429 };
  if (!run)
    return {
      accepted: false,
      reason: 'not a browser or chat session that is waiting to connect (connected before, or ended)',
      status: 409,
    };
  return { accepted: true, runRef: claim.runRef, admitted: run };
}
