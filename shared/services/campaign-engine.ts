import { contactWindows, decideAfterCall, DEFAULT_RETRY_POLICY } from '../domain/campaign-scheduling.ts';
import type { CallOutcome } from '../domain/call-outcome.ts';
import { nextInstantInsideAll } from '../domain/time-windows.ts';
import { logger } from '../observability/logger.ts';
import type { CampaignRecord, ContactRecord } from '../domain/campaign-records.ts';
import * as repository from '../repositories/campaigns.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import { getOrganization } from '../repositories/organizations.ts';
import type { EndedCall } from '../domain/run.ts';
import { getRuns } from '../repositories/runs-read.ts';
import { eventConfirmationItem } from '../repositories/runs-events.ts';
import { startNamedExecution, stopExecution } from '../workflows/executions.ts';
import { contactZones, dispatchDue, dispatchWithOutcome, dropQueue, type RefillResult } from './campaign-dispatch.ts';
import type { TransactItem } from '../repositories/table.ts';
import { AlongsideRefusedError } from '../repositories/runs-lifecycle.ts';
import { startCallLifecycle } from './calls.ts';
import { emitCampaignState } from '../events/webhook-events.ts';
import { failImport, ImportFailedError, importContacts } from './campaign-import.ts';
import { countMetric, METRICS } from '../observability/metrics.ts';
import { positiveNumberSetting } from '../config/settings.ts';

export const CAMPAIGN_ENGINE_ARN_VARIABLE = 'CAMPAIGN_ENGINE_STATE_MACHINE_ARN';

/** Contacts dialed per engine step at most (one Lambda invocation places them concurrently). */
const DISPATCH_BATCH = 100;
/** Steps per execution before it continues as a new one: ~11 history events each, far below 25,000. */
export const MAX_STEPS_PER_EXECUTION = 1000;
/**
 * How long the engine sleeps while calls are in flight or channels are busy. Completions refill
 * their channels themselves, so this only bounds how late the engine notices channels freed by
 * other traffic or recovers a crashed placement.
 */
const pollSeconds = () => positiveNumberSetting('CAMPAIGN_POLL_SECONDS', 60);
/** Local speed-up of retry delays (1 on AWS). */
const timeScale = () => positiveNumberSetting('CAMPAIGN_TIME_SCALE', 1);
/** Time a step spends storing an import before handing over to the next (the function's timeout is 60 s). */
const IMPORT_BUDGET_MS = 30_000;
/** A claim older than this whose run never dialed, or ended unapplied, is recovered by the engine. */
const STALE_CLAIM_MS = 60_000;
/**
 * The channels a step may fill. A contact being dialed holds a channel, or, its call just ended,
 * hands that channel to the next contact itself (its outcome's refill): a channel free at this
 * instant is mostly one such a refill is about to take. So whatever the organization's count shows,
 * the campaign never has more contacts dialing than the organization has channels, and a poll while
 * its own calls fill them dials nobody (no race with the refills, whatever the poll period); what
 * it fills are channels other traffic freed, or left by refills that found nothing due.
 */
const freeChannels = (organization: Awaited<ReturnType<typeof getOrganization>>, dialing: number) => {
  const capacity = organization?.maxConcurrentCalls ?? 0;
  return Math.max(0, Math.min(capacity - (organization?.active_calls ?? 0), capacity - dialing));
};

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

export type StepResult =
  { action: 'wait'; waitUntil: string } | { action: 'continue' } | { action: 'stop'; reason: string };

const executionName = (ref: CampaignRef, generation: number, part: number) =>
  `campaign-${ref.organizationId}-${ref.campaignId}-g${generation}-p${part}`;

export async function startEngine(campaign: CampaignRecord): Promise<void> {
  const ref = { organizationId: campaign.organization_id, campaignId: campaign.id };
  const input: EngineInput = { campaign: ref, generation: campaign.generation, part: 0, step: 0 };
  await startNamedExecution(CAMPAIGN_ENGINE_ARN_VARIABLE, executionName(ref, campaign.generation, 0), input);
}

/** Stops the current generation's execution early (it would also stop itself at its next step). */
export async function stopEngine(campaign: CampaignRecord): Promise<void> {
  if (campaign.generation === 0) return;
  await stopExecution(
    CAMPAIGN_ENGINE_ARN_VARIABLE,
    executionName({ organizationId: campaign.organization_id, campaignId: campaign.id }, campaign.generation, 0),
  ).catch((error: unknown) =>
    logger.warn('Could not stop the campaign engine execution; it stops at its next step', { error: String(error) }),
  );
}

/** The next execution of the same generation, when this one has used its history budget. */
export async function continueEngine(input: EngineInput): Promise<void> {
  await startNamedExecution(
    CAMPAIGN_ENGINE_ARN_VARIABLE,
    executionName(input.campaign, input.generation, input.part + 1),
    {
      ...input,
      part: input.part + 1,
      step: 0,
    },
  );
}

/**
 * Applies the outcome of a campaign call to its contact: final (counted) or a retry scheduled by
 * the retry policy and the windows. The channel the call freed dials the campaign's next due
 * contact, and the outcome is written in that contact's claim transaction, with the confirmation
 * that the call's event was consumed (the outbox entry goes); with nothing to dial, they are
 * written alone. A repeated or late report finds the attempt already applied and changes nothing
 * (false). The run carries what the decision needs (attempt, contact time zone); the campaign's
 * retry policy and window never change after creation, so they are read once per process.
 */
export async function applyCallOutcome(run: EndedCall, now = new Date()): Promise<boolean> {
  const origin = run.campaign;
  if (!origin || run.status === 'in_progress' || run.status === 'created') return false;
  const orgId = run.organization_id;
  const settings = await campaignSettings(orgId, origin.campaign_id);
  if (!settings) return false;
  const outcome = run.status as CallOutcome;
  const zones = await contactZones({ timezone: origin.timezone ?? null, e164: run.phone_number });
  const decision = decideAfterCall({
    policy: settings.retry_config ?? DEFAULT_RETRY_POLICY,
    outcome,
    attempts: origin.attempt,
    attemptedAt: new Date(run.created_at),
    endedAt: new Date(run.ended_at ?? now.getTime()),
    windows: contactWindows(settings.calling_window, zones),
    zone: settings.calling_window?.timezone ?? zones[0] ?? 'UTC',
    timeScale: timeScale(),
  });
  const result = {
    last_outcome: outcome,
    call_disposition: (run.gathered_context.call_disposition as string | undefined) ?? null,
    run_id: run.id,
  };
  const contactOutcome: contactStore.ContactOutcome = {
    row: origin.row,
    expect: { statuses: ['dialing'], attempts: origin.attempt },
    ...(decision.kind === 'final'
      ? {
          change: { ...result, status: decision.status, next_attempt_at: null },
          final: { failed: decision.status === 'failed' },
        }
      : { change: { ...result, status: 'retry_scheduled', next_attempt_at: decision.at.toISOString() } }),
  };
  const confirmation = eventConfirmationItem(
    { organizationId: orgId, agentId: run.workflow_id, runId: run.id },
    run.analysis?.status === 'pending',
    now,
  );
  /** Writes the outcome with `alongside`: with the next claim, else alone; undefined when an `alongside` item was refused. */
  const write = async (alongside: TransactItem[]) => {
    const refill = await refillWith(settings, now, contactOutcome, alongside);
    if (refill === 'outcome_refused') return { applied: false, placed: false };
    if (refill === 'alongside_refused') return undefined;
    if (refill === 'placed') return { applied: true, placed: true };
    return contactStore.applyContactOutcome(orgId, origin.campaign_id, contactOutcome, alongside).then(
      (applied) => ({ applied, placed: false }),
      (error: unknown) => {
        if (error instanceof AlongsideRefusedError) return undefined;
        throw error;
      },
    );
  };
  // The confirmation is refused only when the run was deleted since it ended: nothing is left to confirm.
  const { applied, placed } = (await write([confirmation])) ?? (await write([]))!;
  if (applied && decision.kind === 'final') countMetric(METRICS.campaignContactsFinished);
  if (applied && !placed) await completeIfDone(settings, now);
  return applied;
}

const settingsCache = new Map<string, Promise<CampaignRecord | undefined>>();

/** The campaign as first read by this process: only its fixed settings (agent, retry policy, window) may be used from it. */
function campaignSettings(orgId: number, campaignId: number): Promise<CampaignRecord | undefined> {
  const key = `${orgId}#${campaignId}`;
  let cached = settingsCache.get(key);
  if (!cached) {
    cached = repository.getCampaign(orgId, campaignId);
    settingsCache.set(key, cached);
    cached.then((campaign) => campaign || settingsCache.delete(key)).catch(() => settingsCache.delete(key));
    if (settingsCache.size > 1000) settingsCache.delete(settingsCache.keys().next().value!);
  }
  return cached;
}

/** The channel a campaign call freed dials the next due contact, with the call's outcome (see dispatchWithOutcome). */
async function refillWith(
  settings: CampaignRecord,
  now: Date,
  outcome: contactStore.ContactOutcome,
  alongside: TransactItem[],
): Promise<RefillResult> {
  if (settings.calling_window && !insideCampaignWindow(settings, now)) return 'not_placed';
  return dispatchWithOutcome(settings, now, outcome, alongside);
}

/** When a freed channel found nothing to dial, the campaign may have just finished. */
async function completeIfDone(settings: CampaignRecord, now: Date): Promise<void> {
  const campaign = await repository.getCampaign(settings.organization_id, settings.id);
  if (campaign?.state === 'running' && campaign.processed_rows >= campaign.total_rows)
    await completeCampaign(campaign, now);
}

function insideCampaignWindow(campaign: CampaignRecord, now: Date): boolean {
  const opens = nextInstantInsideAll(now, contactWindows(campaign.calling_window, []));
  return opens !== undefined && opens !== null && opens.getTime() <= now.getTime();
}

/** Marks the campaign completed and lets its engine execution go (it would also stop at its next step). */
async function completeCampaign(campaign: CampaignRecord, now: Date): Promise<void> {
  const completed = await repository.transitionCampaign(
    campaign.organization_id,
    campaign.id,
    ['running'],
    'completed',
    { completed_at: now.toISOString() },
  );
  dropQueue(campaign);
  if (completed) {
    countMetric(METRICS.campaignsCompleted);
    await Promise.all([stopEngine(completed), emitCampaignState(completed)]);
  }
}

/**
 * In-flight contacts whose call outlived a crash: a run that ended without its outcome applied
 * (the event was lost) gets it applied; a run that never dialed (the process died between its
 * transaction and the start of its call-lifecycle execution) gets that execution started, once,
 * since the execution is named after the run. Only claims older than STALE_CLAIM_MS are looked at,
 * with one BatchGetItem per 100 of them.
 */
async function reconcileInFlight(campaign: CampaignRecord, dialing: ContactRecord[], now: Date): Promise<void> {
  const stale = dialing.filter(
    (contact) => contact.run_id !== null && now.getTime() - Date.parse(contact.last_attempt_at ?? '') > STALE_CLAIM_MS,
  );
  if (stale.length === 0) return;
  const found = await getRuns(
    stale.map((contact) => ({
      organizationId: campaign.organization_id,
      agentId: campaign.workflow_id,
      runId: contact.run_id!,
    })),
  );
  for (const run of found) {
    if (run.status !== 'in_progress') await applyCallOutcome(run, now);
    else if (!run.provider_call_id) {
      await startCallLifecycle(run).catch((error: unknown) =>
        logger.warn('Call-lifecycle execution not restarted', { runId: run.id, error: String(error) }),
      );
    }
  }
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

/**
 * One step of the campaign engine: fill every free channel with due contacts, then sleep until the
 * next contact falls due or the window opens. Calls in flight need no polling: each one's outcome
 * hands its channel to the next due contact; while they run, the engine only looks in every
 * CAMPAIGN_POLL_SECONDS (channels freed by other traffic, crash recovery). A step never asks to
 * run again at once.
 */
export async function engineStep(input: EngineInput, now = new Date()): Promise<StepResult> {
  const { organizationId: orgId, campaignId } = input.campaign;
  let campaign = await repository.getCampaign(orgId, campaignId);
  if (!campaign || campaign.generation !== input.generation) return { action: 'stop', reason: 'superseded' };
  if (campaign.state === 'importing') {
    // Storing contacts is the work itself: the next step follows at once until it is done.
    try {
      if (!(await importContacts(campaign, IMPORT_BUDGET_MS))) return { action: 'wait', waitUntil: now.toISOString() };
    } catch (error) {
      if (!(error instanceof ImportFailedError)) throw error;
      logger.error('Campaign import failed', { error: error.message });
      await failImport(campaign, error);
      return { action: 'stop', reason: 'import_failed' };
    }
    campaign = await repository.getCampaign(orgId, campaignId);
    if (!campaign) return { action: 'stop', reason: 'superseded' };
  }
  if (campaign.state === 'scheduled') {
    if (campaign.scheduled_start_at && Date.parse(campaign.scheduled_start_at) > now.getTime())
      return { action: 'wait', waitUntil: campaign.scheduled_start_at };
    campaign =
      (await repository.transitionCampaign(orgId, campaignId, ['scheduled'], 'running', {
        started_at: now.toISOString(),
      })) ?? campaign;
  }
  if (campaign.state !== 'running') return { action: 'stop', reason: campaign.state };
  if (campaign.processed_rows >= campaign.total_rows) {
    const completed = await repository.transitionCampaign(orgId, campaignId, ['running'], 'completed', {
      completed_at: now.toISOString(),
    });
    if (completed) countMetric(METRICS.campaignsCompleted);
    await emitCampaignState(completed);
    dropQueue(campaign);
    return { action: 'stop', reason: 'completed' };
  }
  if (input.step >= MAX_STEPS_PER_EXECUTION) return { action: 'continue' };

  const dialing = await contactStore.dialingContacts(orgId, campaignId);
  await reconcileInFlight(campaign, dialing, now);

  if (campaign.calling_window && !insideCampaignWindow(campaign, now)) {
    const opens = nextInstantInsideAll(now, contactWindows(campaign.calling_window, []));
    if (opens) return { action: 'wait', waitUntil: opens.toISOString() };
  }

  let free = freeChannels(await getOrganization(orgId), dialing.length);
  let placed = 0;
  let blocked = free === 0;
  while (free > 0 && !blocked) {
    const outcomes = await dispatchDue(campaign, now, Math.min(free, DISPATCH_BATCH));
    if (outcomes.length === 0 || outcomes.includes('stopped')) break;
    const placedNow = outcomes.filter((outcome) => outcome === 'placed').length;
    placed += placedNow;
    free -= placedNow;
    blocked = outcomes.includes('capacity');
  }
  const nextDue = await contactStore.nextDueAt(orgId, campaignId);
  const poll = later(now, pollSeconds());
  const dueNow = nextDue !== null && Date.parse(nextDue) <= now.getTime();
  // Something to do soon: a contact falling due later, or, while calls are in flight or contacts
  // wait for a channel another campaign or a direct call holds, the next look-in.
  if (!dueNow && nextDue && (dialing.length + placed === 0 || nextDue < poll))
    return { action: 'wait', waitUntil: nextDue };
  return { action: 'wait', waitUntil: poll };
}

/** Local restarts lose in-memory executions: every running or scheduled campaign gets a fresh generation. */
export async function restartActiveCampaigns(): Promise<number> {
  const active = await repository.listActiveCampaigns();
  for (const { organizationId, campaignId } of active) {
    const campaign = await repository.getCampaign(organizationId, campaignId);
    if (!campaign) continue;
    const restarted = await repository.transitionCampaign(
      organizationId,
      campaignId,
      [campaign.state],
      campaign.state,
      { bumpGeneration: true },
    );
    if (restarted) await startEngine(restarted);
  }
  return active.length;
}
