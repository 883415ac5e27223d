/**
 * The API's side of live listen and control (`POST …/listen`, `POST …/control`): a listen link to
 * the media task holding the run, and a command posted to it with a short control credential. The
 * media task's side is media/src/live-call-server.ts; what both check is shared/domain/live-call-access.ts.
 */
import { requiredSetting } from '../config/settings.ts';
import { ConflictError, DomainError } from '../domain/errors.ts';
import {
  CONTROL_TOKEN_SECONDS,
  controlUrl,
  LISTEN_TOKEN_SECONDS,
  listenUrl,
  purposeRef,
} from '../domain/live-call-access.ts';
import { formatRunRef } from '../domain/run-ref.ts';
import type { RunRecord } from '../domain/run.ts';
import type { LiveCommand, MediaControlCommand } from '../schemas/live-calls.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';
import { findRun } from './conversations.ts';

/** The media service did not take a command (unreachable, or an answer it should not give): 502. */
export class MediaServiceError extends DomainError {
  readonly kind = 'upstream';
}

/** How long the API waits for the media service to take a command. */
const CONTROL_TIMEOUT_MS = 10_000;

/** A run is live while in progress with its media started (a call answered, a session connected). */
function assertLive(run: RunRecord): void {
  if (run.status !== 'in_progress' && run.status !== 'created')
    throw new ConflictError(`The conversation has ended (${run.status})`);
  if (!run.media_host)
    throw new ConflictError(
      'The conversation is not live yet: its call has not been answered, or its session not connected',
    );
  if (run.transfer && !run.transfer.resumed_at)
    throw new ConflictError('The call is being transferred to a person: the agent has left it');
}

/** A listen URL for a live run, with a credential for that run (and organization) only. */
export async function listenToConversation(orgId: number, agentRef: string, runId: number, now = Date.now()) {
  const { run, ref } = await findRun(orgId, agentRef, runId);
  assertLive(run);
  const runRef = formatRunRef(ref);
  const token = await mintStreamToken(purposeRef('listen', runRef), LISTEN_TOKEN_SECONDS, now);
  return {
    url: listenUrl(requiredSetting('MEDIA_STREAM_URL'), runRef, token),
    expires_at: new Date(Math.floor(now / 1000) * 1000 + LISTEN_TOKEN_SECONDS * 1000).toISOString(),
    media_format: { encoding: 'audio/x-mulaw' as const, sample_rate: 8000 as const, channels: 1 as const },
  };
}

/** Has the media service holding a live run apply `command` (say, add a message, end). */
export async function controlConversation(orgId: number, agentRef: string, runId: number, command: LiveCommand) {
  const { run, ref } = await findRun(orgId, agentRef, runId);
  assertLive(run);
  const answer = await postToLiveCall(formatRunRef(ref), command);
  if (answer.status === 409) throw new ConflictError(answer.detail ?? 'The conversation is not live');
  if (answer.status < 200 || answer.status >= 300)
    throw new MediaServiceError(`The media service answered ${answer.status}: ${answer.detail ?? 'no detail'}`);
  return { workflow_run_id: run.id, type: command.type, status: 'applied' as const };
}

/**
 * Posts `command` for the live run `runRef` to the media service's `/control` (the task holding
 * the call takes it, wherever the load balancer sends it), with a control credential for that run:
 * its answer's status and detail. MediaServiceError when the service cannot be reached.
 */
export async function postToLiveCall(
  runRef: string,
  command: MediaControlCommand,
): Promise<{ status: number; detail?: string }> {
  const token = await mintStreamToken(purposeRef('control', runRef), CONTROL_TOKEN_SECONDS);
  let response: Response;
  try {
    response = await fetch(controlUrl(requiredSetting('MEDIA_STREAM_URL')), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ run_ref: runRef, token, command }),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new MediaServiceError(`The media service could not be reached: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as { detail?: string };
  return { status: response.status, ...(answer.detail === undefined ? {} : { detail: answer.detail }) };
}
