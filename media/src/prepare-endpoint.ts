/**
 * POST PREPARE_PATH `{run_ref, token, mode, initial_context, definition_id, campaign_goal?, phone_number?}`: the dialer (shared/services/media-preparation.ts) asks the
 * task to make a call ready while it rings (call-preparer.ts). The credential is a stream token
 * minted for the run's `prepare` purpose: only the platform asks, and what it says of the run (its
 * mode and initial context, for the greeting, and its definition version) is taken as it says it, with no read of the run. The answer says what was done
 * (`preparing`, `already`, `full`: the task has no room, `off`: early connections are off); the
 * dialer only logs it, since a call not prepared still starts, opening what it needs on answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PREPARE_PATH, purposeRef } from '../../shared/domain/live-call-access.ts';
import { parseRunRef } from '../../shared/domain/run-ref.ts';
import { MAX_INITIAL_CONTEXT_BYTES } from '../../shared/schemas/runs.ts';
import { checkStreamToken } from '../../shared/telephony/stream-token.ts';
import type { PrepareOutcome } from './call-preparer.ts';
import { readBody } from './live-call-server.ts';

/** The largest initial context at its worst JSON escape (6 bytes a character), and the rest of the request. */
const MAX_PREPARE_REQUEST_BYTES = MAX_INITIAL_CONTEXT_BYTES * 6 + 2048;

export interface PrepareRequest {
  runRef: string;
  mode: string;
  initialContext: Record<string, unknown>;
  definitionId: number;
  /** The goal of the campaign that placed the call; null: none. */
  campaignGoal: string | null;
  /** The number called: the agent reads its notes about that person. */
  phoneNumber: string | null;
}

/** Handles POST PREPARE_PATH (false for other requests); `prepare` null: early connections are off. */
export function handlePrepareRequest(
  request: IncomingMessage,
  response: ServerResponse,
  prepare: ((request: PrepareRequest) => PrepareOutcome) | null,
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
  prepare: ((request: PrepareRequest) => PrepareOutcome) | null,
): Promise<{ status: number; body: object }> {
  const raw = await readBody(request, MAX_PREPARE_REQUEST_BYTES);
  let body: {
    run_ref?: unknown;
    token?: unknown;
    mode?: unknown;
    initial_context?: unknown;
    definition_id?: unknown;
    campaign_goal?: unknown;
    phone_number?: unknown;
  } = {};
  try {
    body = (raw ? (JSON.parse(raw) as typeof body | null) : null) ?? {};
  } catch {
    // answered below
  }
  const {
    run_ref: runRef,
    token,
    mode,
    initial_context: initialContext,
    definition_id: definitionId,
    campaign_goal: campaignGoal = null,
    phone_number: phoneNumber = null,
  } = body;
  const isObject = typeof initialContext === 'object' && initialContext !== null && !Array.isArray(initialContext);
  if (
    typeof runRef !== 'string' ||
    !parseRunRef(runRef) ||
    typeof token !== 'string' ||
    typeof mode !== 'string' ||
    !isObject ||
    !Number.isSafeInteger(definitionId) ||
    (campaignGoal !== null && typeof campaignGoal !== 'string') ||
    (phoneNumber !== null && typeof phoneNumber !== 'string')
  )
    return {
      status: 400,
      body: { detail: 'A prepare request is {run_ref, token, mode, initial_context, definition_id}' },
    };
  const check = await checkStreamToken(purposeRef('prepare', runRef), token);
  if (check !== 'valid') return { status: 401, body: { detail: `prepare credential ${check}` } };
  const asked = {
    runRef,
    mode,
    initialContext: initialContext as Record<string, unknown>,
    definitionId: definitionId as number,
    campaignGoal,
    phoneNumber,
  };
  return { status: 202, body: { status: prepare ? prepare(asked) : 'off' } };
}
