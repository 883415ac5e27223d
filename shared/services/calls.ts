import { maxCallSeconds } from '../config/call-length.ts';
import { decideCallingHours } from '../domain/calling-hours.ts';
import { CapacityError, ConflictError, ForbiddenError } from '../domain/errors.ts';
import { phoneNumberTimeZones } from '../domain/phone-numbers.ts';
import { formatRunRef, type RunRef } from '../domain/run-ref.ts';
import { nextId } from '../repositories/counters.ts';
import type { CampaignOrigin, RunRecord } from '../domain/run.ts';
import type { RunTest } from '../domain/agent-tests.ts';
import { insertRun } from '../repositories/runs-lifecycle.ts';
import type { TransactItem } from '../repositories/table.ts';
import type { Agent } from '../schemas/agents.ts';
import { startNamedExecution } from '../workflows/executions.ts';
import { getAgent } from './agents.ts';
import { runDefinitionId } from './definitions.ts';
import { completeCall } from './call-completion.ts';
import { isBlocked } from './do-not-call.ts';
import { newRun } from './new-run.ts';
import { callNumbersRefusal } from './numbers.ts';
import { countMetric, METRICS } from '../observability/metrics.ts';
import { logger } from '../observability/logger.ts';

/** Seconds a caller should wait after a 429: about the length of a short call. */
export const CAPACITY_RETRY_AFTER_SECONDS = 30;

/** The call-lifecycle state machine's ARN reaches the function in this variable. */
export const CALL_LIFECYCLE_ARN_VARIABLE = 'CALL_LIFECYCLE_STATE_MACHINE_ARN';

/** The longest a call may last; the media service hangs up then, and the watchdog ends the run after a margin. */
export const WATCHDOG_MARGIN_SECONDS = 300;

/** Input of the call-lifecycle state machine. */
export interface CallLifecycleInput {
  /** References only: execution inputs outlive a deleted run, so no number or personal data here. */
  call: { ref: RunRef; runRef: string; watchdogSeconds: number; dialed?: boolean };
}

export interface PlaceCallRequest {
  phone_number: string;
  initial_context: Record<string, unknown>;
  /** A version other than the agent's current one (a draft being tried). */
  definition_id?: number;
}

/**
 * Places an outbound call. The provider account must be usable (503 otherwise); then checks, in
 * the contract's order: Do-not-call (403), calling hours in every zone of the number (409 with
 * `retry_at`), channel capacity (429); the number itself was validated as E.164 before. The run exists, in progress, before this returns; the call-lifecycle
 * state machine dials and guarantees the run ends.
 */
export async function placeCall(
  orgId: number,
  agentRef: string,
  request: PlaceCallRequest,
  origin: CampaignOrigin | null = null,
  now = new Date(),
  idempotencyRecord: string | null = null,
) {
  const agent = await getAgent(orgId, agentRef);
  // A deployment whose platform account is not filled in yet answers 503 naming the secret, before any run exists.
  // (The accounts module and the provider SDKs behind it load only now, not with the cold start.)
  await (await import('../telephony/accounts.ts')).accountOf(orgId);
  return placeCallForAgent(orgId, agent, request, origin, now, { idempotencyRecord });
}

/**
 * Starts the run's call-lifecycle execution. It is named after the run and its input derives from
 * the run, so starting it again (recovering a placement interrupted after its transaction) is
 * harmless: Step Functions returns the running execution or refuses a second one.
 */
export async function startCallLifecycle(run: RunRecord, dialed = false): Promise<void> {
  const ref: RunRef = { organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id };
  const input: CallLifecycleInput = {
    call: {
      ref,
      runRef: formatRunRef(ref),
      watchdogSeconds: maxCallSeconds() + WATCHDOG_MARGIN_SECONDS,
      ...(dialed ? { dialed } : {}),
    },
  };
  await startNamedExecution(CALL_LIFECYCLE_ARN_VARIABLE, `call-${run.organization_id}-${run.id}`, input);
}

/** What a batch dispatcher (the campaign engine) established for a call instead of reading it per call. */
export interface PreparedPlacement {
  /** Do-not-call, calling hours and the numbers' state were checked by the caller, for a whole batch. */
  from: string | null;
  /** Allocated with the batch's other run ids. */
  runId: number;
  /** Conditional writes made in the run's transaction (the campaign contact's claim); they require an active agent. */
  alongside: TransactItem[];
  /**
   * Dials the run as soon as it is placed, in this function (shared/services/call-control.ts
   * `dialPlacedRun`, passed in by the dispatcher): the run is in hand, so the dial reads nothing.
   * Not dialed (a send slot too far ahead, a provider error), the call-lifecycle execution dials it.
   */
  dial?: (run: RunRecord, runRef: string) => Promise<{ callId: string } | object>;
}

/** How a placement was prepared: by a batch dispatcher, and under which Idempotency-Key record. */
export interface PlacementOptions {
  prepared?: PreparedPlacement;
  /** The Idempotency-Key record this placement's response is kept under, deleted with the run. */
  idempotencyRecord?: string | null;
  /** A voice test's call (services/agent-test-runner.ts), never a customer's request: its name and test. */
  test?: { name: string; record: RunTest };
}

export async function placeCallForAgent(
  orgId: number,
  agent: Agent,
  request: PlaceCallRequest,
  origin: CampaignOrigin | null = null,
  now = new Date(),
  options: PlacementOptions = {},
) {
  if (agent.status !== 'active') throw new ConflictError('The agent is archived; unarchive it to place calls');
  const to = request.phone_number;
  const { prepared, idempotencyRecord } = options;
  const from = prepared ? prepared.from : await screenCall(orgId, agent, to, now);
  const [runId, definitionId] = await Promise.all([
    prepared ? prepared.runId : nextId('run'),
    // A batch dispatcher's version is the campaign's, pinned from the agent when it started.
    prepared
      ? (request.definition_id ?? agent.current_definition_id)
      : runDefinitionId(orgId, agent, request.definition_id),
  ]);
  const createdAt = now.toISOString();
  const started = newRun(orgId, agent, {
    id: runId,
    name: options.test?.name ?? `Call to ${to}`,
    mode: 'phone',
    status: 'in_progress',
    phone_number: to,
    // Without an agent number the dial step uses the provider account's caller id.
    from_number: from ?? null,
    created_at: createdAt,
    logs: [{ timestamp: createdAt, level: 'INFO', message: `Call to ${to} initiated` }],
    campaign: origin,
    initialContext: request.initial_context,
    definitionId,
  });
  const run: RunRecord = options.test ? { ...started, test: options.test.record } : started;
  if (idempotencyRecord) run.idempotency_record = idempotencyRecord;
  if (!(await insertRun(run, true, prepared?.alongside))) {
    countMetric(METRICS.channelCapacityRejections);
    throw new CapacityError(
      'All outbound channels of the organization are busy; retry after Retry-After seconds',
      CAPACITY_RETRY_AFTER_SECONDS,
    );
  }

  const ref: RunRef = { organizationId: orgId, agentId: agent.id, runId };
  const dialed = prepared?.dial ? await dialPlaced(prepared.dial, run, formatRunRef(ref)) : false;
  try {
    await startCallLifecycle(run, dialed);
  } catch (error) {
    // The run must not hold a channel for a call that never starts.
    await completeCall({
      ref,
      outcome: 'failed',
      endedAt: new Date().toISOString(),
      reason: 'The call could not be started',
    });
    throw error;
  }
  countMetric(METRICS.callsPlaced);
  return { status: 'initiated' as const, workflow_run_id: runId, workflow_run_name: run.name };
}

/** True when the dispatcher's own dial reached the provider (a failure is left to the call-lifecycle execution). */
async function dialPlaced(
  dial: NonNullable<PreparedPlacement['dial']>,
  run: RunRecord,
  runRef: string,
): Promise<boolean> {
  try {
    return 'callId' in (await dial(run, runRef));
  } catch (error) {
    // Raised before the provider took the call (a call it took is never an error): dialing again is safe.
    logger.warn('Dial in the dispatcher failed; the call-lifecycle execution dials', { error: String(error) });
    return false;
  }
}

/** The per-call checks of a single placement: Do-not-call (403), calling hours (409), the numbers' state (409). Returns the caller id. */
async function screenCall(orgId: number, agent: Agent, to: string, now: Date): Promise<string | null> {
  if (await isBlocked(orgId, to))
    throw new ForbiddenError(`do_not_call: ${to} is on the organization's Do not call list`);

  const hours = decideCallingHours(now, await phoneNumberTimeZones(to));
  if (!hours.allowed) {
    const retryAfterSeconds = Math.ceil((hours.retryAt.getTime() - now.getTime()) / 1000);
    throw new ConflictError(
      {
        code: 'outside_calling_hours',
        message: `Calls to ${to} are allowed between 08:00 and 21:00 in the recipient's local time (${hours.zones.join(', ')})`,
        retry_at: hours.retryAt.toISOString(),
        time_zones: hours.zones,
      },
      retryAfterSeconds,
    );
  }

  // A pending (or suspended) number of the organization carries no traffic, either way.
  const numbers = await callNumbersRefusal(orgId, agent.id, to);
  if (numbers.refusal) throw new ConflictError(numbers.refusal);
  return numbers.from;
}
