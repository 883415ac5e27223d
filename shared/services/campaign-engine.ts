import { contactWindows, decideAfterCall, DEFAULT_RETRY_POLICY } from '../domain/campaign-scheduling.ts';
import type { CallOutcome } from '../domain/call-outcome.ts';
import { CapacityError, ConflictError, DomainError, ForbiddenError } from '../domain/errors.ts';
import { phoneNumberTimeZones } from '../domain/phone-numbers.ts';
import { nextInstantInsideAll } from '../domain/time-windows.ts';
import { logger } from '../observability/logger.ts';
import * as repository from '../repositories/campaigns.ts';
import { getOrganization } from '../repositories/organizations.ts';
import * as runs from '../repositories/runs.ts';
import { startNamedExecution, stopExecution } from '../workflows/executions.ts';
import { isBlocked } from './do-not-call.ts';
import { placeCallOnce } from './idempotent-calls.ts';
import { countMetric, METRICS } from '../observability/metrics.ts';

export const CAMPAIGN_ENGINE_ARN_VARIABLE = 'CAMPAIGN_ENGINE_STATE_MACHINE_ARN';

/** Contacts dialed per engine step at most (one Lambda invocation places them concurrently). */
const DISPATCH_BATCH = 100;
/** Steps per execution before it continues as a new one: ~11 history events each, far below 25,000. */
export const MAX_STEPS_PER_EXECUTION = 1000;
/** How long the engine sleeps while calls are in flight or channels are busy. */
const pollSeconds = () => Number(process.env.CAMPAIGN_POLL_SECONDS ?? 10);
/** Local speed-up of retry delays (1 on AWS). */
const timeScale = () => Number(process.env.CAMPAIGN_TIME_SCALE ?? 1) || 1;
/** A claimed contact without a run after this long lost its placement (crash): it is placed again, idempotently. */
const STALE_CLAIM_MS = 60_000;

export interface CampaignRef {
  organizationId: number;
  campaignId: number;
}

/** Input of the campaign-engine state machine. */
export interface EngineInput {
  campaign: CampaignRef;
  generation: number;
  /** Continuation number of this generation (continue-as-new). */
  part: number;
  step: number;
}

export type StepResult = { action: 'wait'; waitUntil: string } | { action: 'continue' } | { action: 'stop'; reason: string };

const executionName = (ref: CampaignRef, generation: number, part: number) => `campaign-${ref.organizationId}-${ref.campaignId}-g${generation}-p${part}`;

export async function startEngine(campaign: repository.CampaignRecord): Promise<void> {
  const ref = { organizationId: campaign.organization_id, campaignId: campaign.id };
  const input: EngineInput = { campaign: ref, generation: campaign.generation, part: 0, step: 0 };
  await startNamedExecution(CAMPAIGN_ENGINE_ARN_VARIABLE, executionName(ref, campaign.generation, 0), input);
}

/** Stops the current generation's execution early (it would also stop itself at its next step). */
export async function stopEngine(campaign: repository.CampaignRecord): Promise<void> {
  if (campaign.generation === 0) return;
  await stopExecution(CAMPAIGN_ENGINE_ARN_VARIABLE, executionName({ organizationId: campaign.organization_id, campaignId: campaign.id }, campaign.generation, 0)).catch(
    (error: unknown) => logger.warn('Could not stop the campaign engine execution; it stops at its next step', { error: String(error) }),
  );
}

/** The next execution of the same generation, when this one has used its history budget. */
export async function continueEngine(input: EngineInput): Promise<void> {
  await startNamedExecution(CAMPAIGN_ENGINE_ARN_VARIABLE, executionName(input.campaign, input.generation, input.part + 1), {
    ...input,
    part: input.part + 1,
    step: 0,
  });
}

async function zonesOf(contact: repository.ContactRecord): Promise<string[]> {
  if (contact.timezone) return [contact.timezone];
  return contact.e164 ? phoneNumberTimeZones(contact.e164) : [];
}

type DispatchOutcome = 'placed' | 'rescheduled' | 'skipped' | 'capacity';

/** Dials one due contact if it may be dialed now; the contact row's conditional updates make it once per attempt. */
async function dispatchContact(campaign: repository.CampaignRecord, contact: repository.ContactRecord, now: Date): Promise<DispatchOutcome> {
  const orgId = campaign.organization_id;
  const due = { statuses: ['pending', 'retry_scheduled'] as const, attempts: contact.attempts };
  const next = nextInstantInsideAll(now, contactWindows(campaign.calling_window, await zonesOf(contact)));
  if (!next) {
    await repository.finishContact(orgId, campaign.id, contact.row, due, { status: 'failed', error: 'the calling window and the legal hours never overlap', next_attempt_at: null }, true);
    return 'skipped';
  }
  if (next.getTime() > now.getTime()) {
    await repository.updateContact(orgId, campaign.id, contact.row, due, { status: contact.status, next_attempt_at: next.toISOString() });
    return 'rescheduled';
  }
  if (await isBlocked(orgId, contact.e164!)) {
    await repository.finishContact(orgId, campaign.id, contact.row, due, { status: 'do_not_call', error: 'on the Do not call list', next_attempt_at: null }, true);
    return 'skipped';
  }
  const attempt = contact.attempts + 1;
  const claimed = await repository.updateContact(orgId, campaign.id, contact.row, due, {
    status: 'dialing',
    attempts: attempt,
    last_attempt_at: now.toISOString(),
    next_attempt_at: null,
    run_id: null,
  });
  if (!claimed) return 'skipped';
  return placeClaimed(campaign, { ...contact, status: 'dialing', attempts: attempt }, now);
}

/**
 * Places the call of a claimed attempt. The idempotency key names the attempt, so placing it again
 * after a crash returns the first call instead of dialing twice.
 */
async function placeClaimed(campaign: repository.CampaignRecord, contact: repository.ContactRecord, now: Date): Promise<DispatchOutcome> {
  const orgId = campaign.organization_id;
  const claim = { statuses: ['dialing'] as const, attempts: contact.attempts };
  const undo = (nextAttemptAt: string) =>
    repository.updateContact(orgId, campaign.id, contact.row, claim, {
      status: contact.attempts > 1 ? 'retry_scheduled' : 'pending',
      attempts: contact.attempts - 1,
      next_attempt_at: nextAttemptAt,
    });
  try {
    const placed = await placeCallOnce(
      orgId,
      `campaign-${campaign.id}-${contact.row}-${contact.attempts}`,
      String(campaign.workflow_id),
      { phone_number: contact.e164!, initial_context: { first_name: contact.first_name, last_name: contact.last_name, phone_number: contact.e164 } },
      { campaign_id: campaign.id, row: contact.row, attempt: contact.attempts },
    );
    await repository.updateContact(orgId, campaign.id, contact.row, claim, { run_id: placed.workflow_run_id });
    return 'placed';
  } catch (error) {
    if (error instanceof CapacityError) {
      await undo(now.toISOString());
      return 'capacity';
    }
    if (error instanceof ForbiddenError) {
      await repository.finishContact(orgId, campaign.id, contact.row, claim, { status: 'do_not_call', error: 'on the Do not call list', next_attempt_at: null }, true);
      return 'skipped';
    }
    const retryAt = error instanceof ConflictError && typeof error.detail === 'object' ? error.detail.retry_at : undefined;
    if (typeof retryAt === 'string') {
      await undo(retryAt);
      return 'rescheduled';
    }
    if (error instanceof DomainError) {
      // The agent was archived or deleted: the contact cannot be called by this campaign.
      await repository.finishContact(orgId, campaign.id, contact.row, claim, { status: 'failed', error: String(error.detail), next_attempt_at: null }, true);
      return 'skipped';
    }
    throw error;
  }
}

/**
 * Applies the outcome of a campaign call to its contact: final (counted) or a retry scheduled by
 * the retry policy and the windows. A repeated or late report finds the attempt already applied
 * and changes nothing.
 */
export async function applyCallOutcome(run: runs.RunRecord): Promise<void> {
  const origin = run.campaign;
  if (!origin || run.status === 'in_progress' || run.status === 'created') return;
  const orgId = run.organization_id;
  const [campaign, contact] = await Promise.all([repository.getCampaign(orgId, origin.campaign_id), repository.getContact(orgId, origin.campaign_id, origin.row)]);
  if (!campaign || !contact || contact.status !== 'dialing' || contact.attempts !== origin.attempt) return;
  const outcome = run.status as CallOutcome;
  const zones = await zonesOf(contact);
  const decision = decideAfterCall({
    policy: campaign.retry_config ?? DEFAULT_RETRY_POLICY,
    outcome,
    attempts: contact.attempts,
    attemptedAt: new Date(contact.last_attempt_at ?? run.created_at),
    endedAt: new Date(run.ended_at ?? Date.now()),
    windows: contactWindows(campaign.calling_window, zones),
    zone: campaign.calling_window?.timezone ?? zones[0] ?? 'UTC',
    timeScale: timeScale(),
  });
  const claim = { statuses: ['dialing'] as const, attempts: origin.attempt };
  const result = {
    last_outcome: outcome,
    call_disposition: (run.gathered_context.call_disposition as string | undefined) ?? null,
    run_id: run.id,
  };
  if (decision.kind === 'final') {
    await repository.finishContact(orgId, campaign.id, contact.row, claim, { ...result, status: decision.status, next_attempt_at: null }, decision.status === 'failed');
    countMetric(METRICS.campaignContactsFinished);
  } else {
    await repository.updateContact(orgId, campaign.id, contact.row, claim, { ...result, status: 'retry_scheduled', next_attempt_at: decision.at.toISOString() });
  }
}

/** Claimed contacts whose placement was lost, or whose call ended without its outcome applied. */
async function reconcileInFlight(campaign: repository.CampaignRecord, dialing: repository.ContactRecord[], now: Date): Promise<void> {
  for (const contact of dialing) {
    if (contact.run_id === null) {
      if (now.getTime() - Date.parse(contact.last_attempt_at ?? '') > STALE_CLAIM_MS) await placeClaimed(campaign, contact, now);
      continue;
    }
    const run = await runs.getRun(campaign.organization_id, campaign.workflow_id, contact.run_id);
    if (run && run.status !== 'in_progress') await applyCallOutcome(run);
  }
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

/**
 * One step of the campaign engine: dial what may be dialed now within the free channels, then
 * say how long to sleep (until the next contact falls due or the window opens; a short poll while
 * calls are in flight or every channel is busy), or stop.
 */
export async function engineStep(input: EngineInput, now = new Date()): Promise<StepResult> {
  const { organizationId: orgId, campaignId } = input.campaign;
  let campaign = await repository.getCampaign(orgId, campaignId);
  if (!campaign || campaign.generation !== input.generation) return { action: 'stop', reason: 'superseded' };
  if (campaign.state === 'scheduled') {
    if (campaign.scheduled_start_at && Date.parse(campaign.scheduled_start_at) > now.getTime()) return { action: 'wait', waitUntil: campaign.scheduled_start_at };
    campaign = (await repository.transitionCampaign(orgId, campaignId, ['scheduled'], 'running', { started_at: now.toISOString() })) ?? campaign;
  }
  if (campaign.state !== 'running') return { action: 'stop', reason: campaign.state };
  if (campaign.processed_rows >= campaign.total_rows) {
    if (await repository.transitionCampaign(orgId, campaignId, ['running'], 'completed', { completed_at: now.toISOString() })) countMetric(METRICS.campaignsCompleted);
    return { action: 'stop', reason: 'completed' };
  }
  if (input.step >= MAX_STEPS_PER_EXECUTION) return { action: 'continue' };

  const dialing = await repository.dialingContacts(orgId, campaignId);
  await reconcileInFlight(campaign, dialing, now);

  if (campaign.calling_window) {
    const opens = nextInstantInsideAll(now, contactWindows(campaign.calling_window, []));
    if (opens && opens.getTime() > now.getTime()) return { action: 'wait', waitUntil: opens.toISOString() };
  }

  const organization = await getOrganization(orgId);
  const free = Math.max(0, (organization?.maxConcurrentCalls ?? 0) - (organization?.active_calls ?? 0));
  let placed = 0;
  let blocked = free === 0;
  if (free > 0) {
    // Contacts are independent (each guarded by its own conditional writes): dial them together.
    const due = await repository.dueContacts(orgId, campaignId, now.toISOString(), Math.min(free, DISPATCH_BATCH));
    const outcomes = await Promise.all(due.map((contact) => dispatchContact(campaign, contact, now)));
    placed = outcomes.filter((outcome) => outcome === 'placed').length;
    blocked ||= outcomes.includes('capacity');
  }
  const nextDue = await repository.nextDueAt(orgId, campaignId);
  const inFlight = dialing.length + placed > 0;
  const poll = later(now, pollSeconds());
  // More contacts due now and channels free: go again at once. Otherwise sleep until the next
  // contact is due, but no longer than a poll while calls are in flight (they free channels).
  if (nextDue && Date.parse(nextDue) <= now.getTime() && !blocked) return { action: 'wait', waitUntil: now.toISOString() };
  if (blocked || inFlight || !nextDue) return { action: 'wait', waitUntil: nextDue && nextDue < poll ? nextDue : poll };
  return { action: 'wait', waitUntil: nextDue };
}

/** Local restarts lose in-memory executions: every running or scheduled campaign gets a fresh generation. */
export async function restartActiveCampaigns(): Promise<number> {
  const active = await repository.listActiveCampaigns();
  for (const { organizationId, campaignId } of active) {
    const campaign = await repository.getCampaign(organizationId, campaignId);
    if (!campaign) continue;
    const restarted = await repository.transitionCampaign(organizationId, campaignId, [campaign.state], campaign.state, { bumpGeneration: true });
    if (restarted) await startEngine(restarted);
  }
  return active.length;
}
