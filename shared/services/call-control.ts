import { maxCallSeconds } from '../config/call-length.ts';
import { requiredSetting } from '../config/settings.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { formatRunRef, parseRunRef, RUN_QUERY_PARAMETER, type RunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import { nextId } from '../repositories/counters.ts';
import * as numbersRepository from '../repositories/numbers.ts';
import type { RunRecord } from '../domain/run.ts';
import { getRun, inboundCallRunRef } from '../repositories/runs-read.ts';
import {
  AgentUnavailableError,
  AlongsideRefusedError,
  inboundCallClaimItem,
  insertRun,
  updateActiveRun,
} from '../repositories/runs-lifecycle.ts';
import {
  ProviderError,
  type InboundAnswer,
  type InboundCall,
  type InboundResponse,
  type TelephonyAdapter,
} from '../telephony/adapter.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';
import { getAgent } from './agents.ts';
import { completeCall } from './call-completion.ts';
import { hangUpAtProvider } from './provider-hangup.ts';
import { CALL_LIFECYCLE_ARN_VARIABLE, WATCHDOG_MARGIN_SECONDS, type CallLifecycleInput } from './calls.ts';
import { askMediaToPrepare } from './media-preparation.ts';
import { newRun } from './new-run.ts';
import { awaitSendSlot } from './send-slot.ts';
import { startNamedExecution } from '../workflows/executions.ts';

/** A stream credential outlives ringing, answering-machine detection and the provider's connect time. */
export const STREAM_TOKEN_SECONDS = 15 * 60;
/** A dial waits this long in the function for its rate slot; a later slot is waited for by the state machine. */
export const MAX_SLOT_WAIT_MS = 5_000;
/** A dial the provider refused over its call rate (HTTP 429) is tried again after this… */
const RATE_LIMITED_RETRY_SECONDS = 1;
/** …until the call has waited this long since it was placed; then it fails as any provider error does. */
const RATE_LIMITED_GIVE_UP_MS = 10 * 60_000;

const isRateLimited = (error: unknown) => error instanceof ProviderError && error.status === 429;

/** A URL setting without its trailing slash. */
const urlSetting = (name: 'PUBLIC_BASE_URL' | 'MEDIA_STREAM_URL'): string => requiredSetting(name).replace(/\/$/, '');

/** The provider's callback endpoints of this API (PUBLIC_BASE_URL ends with /api/v1). */
export const statusCallbackUrl = (provider: string, runRef: string): string =>
  `${urlSetting('PUBLIC_BASE_URL')}/telephony/${provider}/status?${RUN_QUERY_PARAMETER}=${encodeURIComponent(runRef)}`;

/**
 * The organization's provider account, loaded with the first request that reaches the provider:
 * the provider SDKs (Twilio's is over 3 MB bundled) are a chunk of their own, not part of every
 * cold start of the functions importing this module. The module's promise is kept: an `import()`
 * per dial, though answered from the module cache, went through the loader each time (1 % of the
 * local stack's CPU in a campaign, its resolution hooks included).
 */
let accountsModule: Promise<typeof import('../telephony/accounts.ts')> | undefined;
const accountOf = async (orgId: number) =>
  (await (accountsModule ??= import('../telephony/accounts.ts'))).accountOf(orgId);

export type DialResult = { callId: string } | { retryInSeconds: number } | { skipped: string };

/**
 * Dials a placed call through the organization's provider account, inside the account's call
 * rate: a slot a few seconds away is waited for here, a later one is handed back
 * (`retryInSeconds`) for the state machine to wait without holding a function.
 */
export async function dialRun(call: { ref: RunRef; runRef: string }, now = Date.now): Promise<DialResult> {
  const run = await getRun(call.ref.organizationId, call.ref.agentId, call.ref.runId);
  // The numbers come from the run, not the execution input (which outlives a deleted run).
  if (!run || run.status !== 'in_progress' || !run.phone_number)
    return { skipped: 'The run ended before it was dialed' };
  // An incoming call, or a dial whose earlier attempt reached the provider: never ring twice.
  if (run.provider_call_id) return { skipped: 'The call is already connected' };
  return dialPlacedRun(run, call.runRef, now);
}

/**
 * Dials a run in progress that has no provider call yet, as `dialRun` does once it has read it: a
 * dispatcher that has just placed the run dials it this way, without reading it back.
 */
export async function dialPlacedRun(run: RunRecord, runRef: string, now = Date.now): Promise<DialResult> {
  const ref: RunRef = { organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id };
  const account = await accountOf(ref.organizationId);
  const from = run.from_number || account.callerId;
  if (!from)
    throw new Error(
      "No caller id: assign an outbound number to the agent, or set DEFAULT_CALLER_ID (platform account) or the organization's caller_id",
    );
  // Everything the request needs is ready before the slot: nothing but the request goes after it.
  const request = {
    to: run.phone_number!,
    from,
    runRef,
    streamUrl: urlSetting('MEDIA_STREAM_URL'),
    streamToken: await mintStreamToken(runRef, STREAM_TOKEN_SECONDS),
    statusCallbackUrl: statusCallbackUrl(account.adapter.provider, runRef),
    onMachine: run.voicemail_message ? ('leave_message' as const) : ('hang_up' as const),
  };
  const slot = await awaitSendSlot(account.key, account.callsPerSecond, MAX_SLOT_WAIT_MS, {
    now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  if ('waitMs' in slot) return { retryInSeconds: Math.max(1, Math.floor((slot.waitMs - MAX_SLOT_WAIT_MS / 2) / 1000)) };
  let callId: string;
  try {
    ({ callId } = await account.adapter.calls.dial(request));
  } catch (error) {
    if (!isRateLimited(error) || Date.parse(run.created_at) < now() - RATE_LIMITED_GIVE_UP_MS) throw error;
    // The provider's own limit was reached anyway (a send delayed on its way, another client of
    // the account, a limit below the configured rate): the call is not placed, so dial it later.
    logger.warn('The provider refused the dial over its call rate: dialed again later', { error: String(error) });
    return { retryInSeconds: RATE_LIMITED_RETRY_SECONDS };
  }
  // The provider has the call now: failing to note its id must not make anyone dial it again.
  // While it rings, the media service makes ready what its first words need.
  await Promise.all([
    updateActiveRun(
      ref,
      { provider_call_id: callId },
      { timestamp: new Date().toISOString(), level: 'INFO', message: `Dialing through ${account.adapter.provider}` },
    ).catch((error: unknown) => logger.error('Provider call id not recorded', { callId, error: String(error) })),
    // A test's call is set up on answer, from its run: its tools answer from the test's mocks,
    // which a preparation (what the dialer knows of the run) does not carry.
    run.test ? undefined : askMediaToPrepare(run, runRef, request.streamUrl),
  ]);
  return { callId };
}

/**
 * Hangs up a call in progress (POST …/conversations/{id}/end). The provider's completion (or the
 * media stream's end) then ends the run as usual, with its recording; a call not yet dialed ends
 * at once and is never dialed.
 */
export async function endCall(orgId: number, agentRef: string, runId: number) {
  const agent = await getAgent(orgId, agentRef);
  const run = await getRun(orgId, agent.id, runId);
  if (!run) throw new NotFoundError('Conversation not found');
  if (run.status !== 'in_progress' || !run.phone_number)
    throw new ConflictError('The conversation is not a call in progress');
  const ref: RunRef = { organizationId: orgId, agentId: agent.id, runId };
  if (!run.provider_call_id) {
    await completeCall({
      ref,
      outcome: 'failed',
      endedAt: new Date().toISOString(),
      reason: 'Ended through the API before the call was dialed',
    });
  } else {
    const account = await accountOf(orgId);
    await account.adapter.calls.hangUp(run.provider_call_id);
    await updateActiveRun(
      ref,
      {},
      { timestamp: new Date().toISOString(), level: 'INFO', message: 'Hang-up requested through the API' },
    );
  }
  return { workflow_run_id: runId, status: 'ending' as const };
}

/**
 * The watchdog's end of a call no completion report ended in time (a provider or media failure):
 * the run ends `failed`, then the provider's call, if it is still up, is hung up so it is not left
 * billing. Returns whether the watchdog ended the run (false: it had ended meanwhile).
 */
export async function endForgottenCall(ref: RunRef): Promise<boolean> {
  const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
  if (run?.status !== 'in_progress') return false;
  const ended = await completeCall(
    {
      ref,
      outcome: 'failed',
      endedAt: new Date().toISOString(),
      reason: 'No completion report arrived in time: the call was ended by the watchdog',
    },
    run,
  );
  if (!ended) return false;
  logger.warn('Run ended by the watchdog');
  if (run.provider_call_id) await hangUpAtProvider(ref, run.provider_call_id, 'the run was ended by the watchdog');
  return true;
}

/** The polite refusals of an incoming call: no such line, or a line that cannot take it now. */
export const NOT_IN_SERVICE: InboundAnswer = {
  action: 'reject',
  reason: 'not_in_service',
  message: 'Sorry, this number is not in service. Goodbye.',
};
const UNAVAILABLE: InboundAnswer = {
  action: 'reject',
  reason: 'unavailable',
  message: 'Sorry, nobody can take your call right now. Please try again later. Goodbye.',
};

/**
 * An incoming call (the provider's verified voice webhook): a number assigned to an active agent
 * starts an inbound run (the caller's number in `initial_context`, one of the organization's
 * channels) and connects the media stream; anything else is turned away politely.
 */
async function answerIncomingCall(call: InboundCall, adapter: TelephonyAdapter): Promise<InboundAnswer> {
  const number = await numbersRepository.findNumberByE164(call.to);
  if (!number) {
    logger.warn('Incoming call to a number the platform does not know', { to: call.to });
    return NOT_IN_SERVICE;
  }
  if (number.status !== 'active' || !number.workflow_id) {
    logger.info('Incoming call to a number that carries no traffic', { to: call.to, status: number.status });
    return NOT_IN_SERVICE;
  }
  const orgId = number.organization_id;
  const streamUrl = urlSetting('MEDIA_STREAM_URL');
  const connect = async (runRef: string): Promise<InboundAnswer> => ({
    action: 'connect',
    runRef,
    streamUrl,
    streamToken: await mintStreamToken(runRef, STREAM_TOKEN_SECONDS),
    statusCallbackUrl: statusCallbackUrl(adapter.provider, runRef),
  });
  const agent = await getAgent(orgId, String(number.workflow_id)).catch(() => undefined);
  if (!agent || agent.status !== 'active') return UNAVAILABLE;

  const runId = await nextId('run');
  const ref: RunRef = { organizationId: orgId, agentId: agent.id, runId };
  const runRef = formatRunRef(ref);
  const createdAt = new Date().toISOString();
  const run = {
    ...newRun(orgId, agent, {
      id: runId,
      name: `Call from ${call.from}`,
      mode: 'inbound',
      status: 'in_progress',
      phone_number: call.from,
      from_number: call.to,
      created_at: createdAt,
      logs: [{ timestamp: createdAt, level: 'INFO', message: `Incoming call from ${call.from} to ${call.to}` }],
      campaign: null,
      initialContext: { caller_number: call.from, called_number: call.to },
    }),
    provider_call_id: call.callId,
  };
  try {
    // The claim of the provider's call id is made with the run: one run per incoming call.
    if (!(await insertRun(run, true, [inboundCallClaimItem(adapter.provider, call.callId, runRef)]))) {
      logger.info('Incoming call refused: every channel of the organization is busy', { organizationId: orgId });
      return UNAVAILABLE;
    }
  } catch (error) {
    if (error instanceof AgentUnavailableError) return UNAVAILABLE;
    if (!(error instanceof AlongsideRefusedError)) throw error;
    // The provider retried its webhook: the call already has its run.
    const claimed = await inboundCallRunRef(adapter.provider, call.callId);
    if (!claimed) throw error;
    return connect(claimed);
  }
  // The call-lifecycle execution skips dialing (the run has its provider call) and keeps its watchdog.
  const lifecycle: CallLifecycleInput = {
    call: { ref, runRef, watchdogSeconds: maxCallSeconds() + WATCHDOG_MARGIN_SECONDS },
  };
  try {
    await startNamedExecution(CALL_LIFECYCLE_ARN_VARIABLE, `call-${orgId}-${runId}`, lifecycle);
  } catch (error) {
    await completeCall({
      ref,
      outcome: 'failed',
      endedAt: new Date().toISOString(),
      reason: 'The incoming call could not be started',
    });
    throw error;
  }
  return connect(runRef);
}

/**
 * Answers an incoming call at the provider as answerIncomingCall decided. A caller who hung up
 * before the answer ends the new run at once rather than leaving it to wait for a stream that
 * never comes; other provider failures propagate, so the provider retries the webhook, which
 * finds the same run.
 */
export async function connectIncomingCall(call: InboundCall, adapter: TelephonyAdapter): Promise<InboundResponse> {
  const answer = await answerIncomingCall(call, adapter);
  const response = await adapter.calls.answerInbound(answer, call);
  const ref = answer.action === 'connect' && response.callEnded ? parseRunRef(answer.runRef) : undefined;
  // Only a run whose stream never started: a retried webhook may come after the conversation began.
  const run = ref && (await getRun(ref.organizationId, ref.agentId, ref.runId));
  if (ref && run && run.status === 'in_progress' && !run.answered_at)
    await completeCall({
      ref,
      outcome: 'failed',
      endedAt: new Date().toISOString(),
      reason: 'The caller hung up before the call was answered',
    });
  return response;
}
