/**
 * POST PREPARE_PATH `{run_ref, token}`: the dialer (shared/services/media-preparation.ts) asks the
 * task to make a call ready while it rings (call-preparer.ts). The credential is a stream token
 * minted for the run's `prepare` purpose: only the platform asks. The answer says what was done
 * (`preparing`, `already`, `full`: the task has no room, `off`: early connections are off); the
 * dialer only logs it, since a call not prepared still starts, opening what it needs on answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PREPARE_PATH, purposeRef } from '../../shared/domain/live-call-access.ts';
import { parseRunRef } from '../../shared/domain/run-ref.ts';
import { checkStreamToken } from '../../shared/telephony/stream-token.ts';
import type { PrepareOutcome } from './call-preparer.ts';
import { readBody } from './live-call-server.ts';

/** `{run_ref, token}` with room to spare. */
const MAX_PREPARE_REQUEST_BYTES = 2048;

/** Handles POST PREPARE_PATH (false for other requests); `prepare` null: early connections are off. */
export function handlePrepareRequest(
  request: IncomingMessage,
  response: ServerResponse,
  prepare: ((runRef: string) => PrepareOutcome) | null,
): boolean {
  if (new URL(request.url ?? '/', 'http://localhost').pathname !== PREPARE_PATH) return false;
  const reply = (status: number, body: object) =>
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  if (request.method !== 'POST') {
    reply(405, { detail: 'Method Not Allowed' });
    return true;
  }
  answer(request, prepare).then(
    ({ status, body }) => reply(status, body),
    () => reply(500, { detail: 'The call could not be prepared' }),
  );
  return true;
}

async function answer(
  request: IncomingMessage,
  prepare: ((runRef: string) => PrepareOutcome) | null,
): Promise<{ status: number; body: object }> {
  const raw = await readBody(request, MAX_PREPARE_REQUEST_BYTES);
  let body: { run_ref?: unknown; token?: unknown } = {};
  try {
    body = raw ? (JSON.parse(raw) as typeof body) : {};
  } catch {
    // answered below
  }
  const runRef = body.run_ref;
  if (typeof runRef !== 'string' || !parseRunRef(runRef) || typeof body.token !== 'string')
    return { status: 400, body: { detail: 'A prepare request is {run_ref, token}' } };
  const check = await checkStreamToken(purposeRef('prepare', runRef), body.token);
  if (check !== 'valid') return { status: 401, body: { detail: `prepare credential ${check}` } };
  return { status: 202, body: { status: prepare ? prepare(runRef) : 'off' } };
}
