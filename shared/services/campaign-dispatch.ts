import { contactWindows } from '../domain/campaign-scheduling.ts';
import { CapacityError, ConflictError } from '../domain/errors.ts';
import { phoneNumberTimeZones } from '../domain/phone-numbers.ts';
import { nextInstantInsideAll } from '../domain/time-windows.ts';
import { reuseFor } from '../caching/reuse-for.ts';
import { logger } from '../observability/logger.ts';
import type { CampaignRecord, ContactRecord } from '../domain/campaign-records.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import { nextIds } from '../repositories/counters.ts';
import { getNumber, getOutboundNumberId } from '../repositories/numbers.ts';
import { AgentUnavailableError, AlongsideRefusedError } from '../repositories/runs-lifecycle.ts';
import type { Agent } from '../schemas/agents.ts';
import type { TransactItem } from '../repositories/table.ts';
import { getAgent } from './agents.ts';
import { dialPlacedRun } from './call-control.ts';
import { placeCallForAgent } from './calls.ts';

/**
 * Dispatch of a campaign's due contacts, shared by the engine's step (it fills every free channel)
 * and by the outcome of a campaign call (the channel it freed goes to the next due contact at once,
 * so the engine never has to wake up for it). Per contact it costs one transaction: the contact's
 * claim, its run, the agent's run count, the organization's channel and a check that the campaign
 * is still running. Per batch: one Query of due contacts, one BatchGetItem for their Do-not-call
 * entries and number claims, one run-id allocation. The agent and its outbound number are read
 * once per AGENT_CACHE_MS per process (the claim transaction still refuses an archived agent).
 */

/** Contacts fetched per Query when a dispatcher needs fewer (the rest wait in this process's queue). */
const PREFETCH = 25;
/** Queued contacts older than this are dropped and fetched again (their state may have moved on). */
const QUEUE_TTL_MS = 10_000;
/** A row handed to a dispatcher is not handed out again for this long (a GSI read may still show it due). */
const HANDED_OUT_MS = 30_000;
/** How long the agent and its outbound number are reused without a read. */
const AGENT_CACHE_MS = 10_000;
/** Claims in flight at once per dispatcher (each is one DynamoDB transaction). */
const CLAIM_CONCURRENCY = 32;

export type ContactOutcome = 'placed' | 'capacity' | 'rescheduled' | 'skipped' | 'stopped';

interface Fetched {
  contacts: ContactRecord[];
  settled: ContactOutcome[];
}

interface Queue {
  contacts: ContactRecord[];
  fetchedAt: number;
  /** The UTC minute (epoch ms / 60,000) in which the queued contacts were found inside their windows. */
  checkedMinute: number;
  fetching?: Promise<Fetched>;
  /** `row#attempts` of contacts handed to a dispatcher → when (an attempt is handed out once). */
  handedOut: Map<string, number>;
  /** Handed-out contacts whose claim has not resolved yet: a fetch may still see them due. */
  claiming: number;
}

const queues = new Map<string, Queue>();
const attemptKey = (contact: ContactRecord) => `${contact.row}#${contact.attempts}`;
const queueOf = (campaign: CampaignRecord): Queue => {
  const key = `${campaign.organization_id}#${campaign.id}`;
  let queue = queues.get(key);
  if (!queue) {
    queue = { contacts: [], fetchedAt: 0, checkedMinute: -1, handedOut: new Map(), claiming: 0 };
    queues.set(key, queue);
  }
  return queue;
};

/** Forgets what this process queued for the campaign (it stopped, or its contacts changed). */
export function dropQueue(campaign: CampaignRecord): void {
  queues.delete(`${campaign.organization_id}#${campaign.id}`);
}

/**
 * Up to `count` contacts that may be dialed now, not handed out recently, from the queue or fresh
 * fetches (one in flight per campaign; a dispatcher that waited for another's fetch and still lacks
 * contacts fetches again, so a burst of refills never leaves a freed channel idle while contacts
 * are due). Contacts a fetch cannot dial now are moved on by it and reported in `settled`.
 */
async function takeDue(campaign: CampaignRecord, now: Date, count: number): Promise<Fetched> {
  const queue = queueOf(campaign);
  const clock = Date.now();
  for (const [attempt, at] of queue.handedOut) if (clock - at > HANDED_OUT_MS) queue.handedOut.delete(attempt);
  if (clock - queue.fetchedAt > QUEUE_TTL_MS) queue.contacts = [];
  const settled: ContactOutcome[] = [];
  const taken: ContactRecord[] = [];
  for (;;) {
    while (taken.length < count && queue.contacts.length > 0) {
      const contact = queue.contacts.shift()!;
      // Handed out before the wait below: a fetch ending meanwhile must not queue it again.
      queue.handedOut.set(attemptKey(contact), Date.now());
      // Queued a few seconds ago: its window may have closed since (it is fetched and rescheduled again).
      if (!checkedWithin(queue, now) && !(await dialableAt(campaign, contact, now))) {
        queue.handedOut.delete(attemptKey(contact));
        continue;
      }
      queue.claiming += 1;
      taken.push(contact);
    }
    if (taken.length === count) break;
    if (queue.fetching) {
      await queue.fetching;
      continue;
    }
    const fetching = fetchDialable(campaign, now, Math.max(count - taken.length, PREFETCH) + queue.claiming);
    queue.fetching = fetching;
    const fetched = await fetching.finally(() => {
      queue.fetching = undefined;
    });
    settled.push(...fetched.settled);
    queue.contacts = fetched.contacts.filter((contact) => !queue.handedOut.has(attemptKey(contact)));
    queue.fetchedAt = Date.now();
    queue.checkedMinute = minuteOf(now);
    // Nothing this dispatcher may take: every due contact is handed out already, or none is due.
    if (queue.contacts.length === 0) break;
  }
  return { contacts: taken, settled };
}

const minuteOf = (instant: Date) => Math.floor(instant.getTime() / 60_000);

/**
 * Whether the queued contacts were found inside their windows in the UTC minute of `now`: then they
 * still are. Windows open and close on a local minute (HH:MM), and every zone's offset is a whole
 * number of minutes, so being inside changes only as a UTC minute begins. A fetch's contacts were
 * checked when they were fetched; without this each was checked again as it was taken (libphonenumber
 * and Intl for every contact twice).
 */
const checkedWithin = (queue: Queue, now: Date) => queue.checkedMinute === minuteOf(now);

const dialableAt = async (campaign: CampaignRecord, contact: ContactRecord, now: Date) =>
  nextInstantInsideAll(now, contactWindows(campaign.calling_window, await contactZones(contact)))?.getTime() ===
  now.getTime();

/**
 * One Query of due contacts, then: a contact outside its calling window or legal hours is
 * rescheduled; one on the Do-not-call list, or dialing a number of the organization that carries
 * no traffic, is finished (one BatchGetItem screens them all); the rest may be dialed.
 */
async function fetchDialable(campaign: CampaignRecord, now: Date, limit: number): Promise<Fetched> {
  const orgId = campaign.organization_id;
  const contacts = await contactStore.dueContacts(orgId, campaign.id, now.toISOString(), limit);
  const settled: ContactOutcome[] = [];
  const dialable: ContactRecord[] = [];
  for (const contact of contacts) {
    const next = nextInstantInsideAll(now, contactWindows(campaign.calling_window, await contactZones(contact)));
    if (!next) {
      await endUndialable(campaign, contact, {
        status: 'failed',
        error: 'the calling window and the legal hours never overlap',
      });
      settled.push('skipped');
    } else if (next.getTime() > now.getTime()) {
      await contactStore.updateContact(orgId, campaign.id, contact.row, dueOf(contact), {
        status: contact.status,
        next_attempt_at: next.toISOString(),
      });
      settled.push('rescheduled');
    } else {
      dialable.push(contact);
    }
  }
  if (dialable.length === 0) return { contacts: [], settled };

  const [context, screen] = await Promise.all([
    placementContext(campaign),
    contactStore.screenNumbers(
      orgId,
      dialable.map((contact) => contact.e164!),
    ),
  ]);
  const placeable: ContactRecord[] = [];
  for (const contact of dialable) {
    const claim = screen.claimedBy.get(contact.e164!);
    const ownNumber = claim?.organizationId === orgId ? await getNumber(orgId, claim.numberId) : undefined;
    const refusal = screen.blocked.has(contact.e164!)
      ? { status: 'do_not_call' as const, error: 'on the Do not call list' }
      : context.refusal
        ? { status: 'failed' as const, error: context.refusal }
        : ownNumber && ownNumber.status !== 'active'
          ? {
              status: 'failed' as const,
              error: `${contact.e164} is one of your numbers and is ${ownNumber.status}: it carries no traffic`,
            }
          : undefined;
    if (refusal) {
      await endUndialable(campaign, contact, refusal);
      settled.push('skipped');
    } else {
      placeable.push(contact);
    }
  }
  return { contacts: placeable, settled };
}

/** Run ids reserved by this process, allocated PREFETCH at a time (ids of a process that stops are skipped: ids need not be dense). */
const runIdPool: number[] = [];

export async function takeRunIds(count: number): Promise<number[]> {
  // Another dispatcher may take from the pool while this one waits for more ids: top up until enough.
  while (runIdPool.length < count) {
    const size = Math.max(count - runIdPool.length, PREFETCH);
    const first = await nextIds('run', size);
    runIdPool.push(...Array.from({ length: size }, (_, i) => first + i));
  }
  return runIdPool.splice(0, count);
}

/** The campaign's agent and the number it dials from (key `<organization>#<agent>`), reused for AGENT_CACHE_MS. */
const placementContexts = reuseFor(
  AGENT_CACHE_MS,
  async (key: string): Promise<{ agent: Agent; from: string | null; refusal?: string }> => {
    const [orgId, agentId] = key.split('#').map(Number) as [number, number];
    const agent = await getAgent(orgId, String(agentId));
    const outboundId = await getOutboundNumberId(orgId, agent.id);
    const outbound = outboundId === undefined ? undefined : await getNumber(orgId, outboundId);
    if (outbound && outbound.status !== 'active')
      return {
        agent,
        from: null,
        refusal: `The agent's outbound number ${outbound.phone_number} is ${outbound.status} and carries no traffic`,
      };
    return { agent, from: outbound?.phone_number ?? null };
  },
);
const placementKey = (campaign: CampaignRecord) => `${campaign.organization_id}#${campaign.workflow_id}`;
const placementContext = (campaign: CampaignRecord) => placementContexts(placementKey(campaign));

export const contactZones = async (contact: Pick<ContactRecord, 'timezone' | 'e164'>): Promise<string[]> => {
  if (contact.timezone) return [contact.timezone];
  return contact.e164 ? phoneNumberTimeZones(contact.e164) : [];
};

const dueOf = (contact: ContactRecord) => ({
  statuses: ['pending', 'retry_scheduled'] as const,
  attempts: contact.attempts,
});

/** Ends a due contact that cannot be dialed (no attempt made), with the reason in its report row. */
const endUndialable = (
  campaign: CampaignRecord,
  contact: ContactRecord,
  ending: { status: 'failed' | 'do_not_call'; error: string },
) =>
  contactStore.finishContact(
    campaign.organization_id,
    campaign.id,
    contact.row,
    dueOf(contact),
    { ...ending, next_attempt_at: null },
    true,
  );

/** How one contact's placement went; `refused` names the `alongside` item whose condition failed. */
type Placement = { kind: 'placed' } | { kind: 'capacity' } | { kind: 'refused'; index: number } | { kind: 'agent' };

/**
 * Places one claimed contact's call: its claim, its run and `alongside` items in one transaction.
 * `alongside[0]` must be the campaign's item (a running check, or counters that require it).
 */
async function placeContact(
  campaign: CampaignRecord,
  contact: ContactRecord,
  runId: number,
  now: Date,
  alongside: TransactItem[],
): Promise<Placement> {
  const orgId = campaign.organization_id;
  const context = await placementContext(campaign);
  try {
    await placeCallForAgent(
      orgId,
      context.agent,
      {
        phone_number: contact.e164!,
        initial_context: { first_name: contact.first_name, last_name: contact.last_name, phone_number: contact.e164 },
        definition_id: campaign.definition_id,
      },
      {
        campaign_id: campaign.id,
        row: contact.row,
        attempt: contact.attempts + 1,
        timezone: contact.timezone,
        ...(campaign.goal ? { goal: campaign.goal } : {}),
      },
      now,
      {
        prepared: {
          from: context.from,
          runId,
          alongside: [
            contactStore.contactClaimItem(orgId, campaign.id, contact, runId, now.toISOString()),
            ...alongside,
          ],
          dial: dialPlacedRun,
        },
      },
    );
    return { kind: 'placed' };
  } catch (error) {
    if (error instanceof CapacityError) {
      queueOf(campaign).handedOut.delete(attemptKey(contact));
      return { kind: 'capacity' };
    }
    // 0: another dispatcher claimed the contact; 1: the campaign is no longer running; then the caller's.
    if (error instanceof AlongsideRefusedError) return { kind: 'refused', index: error.index };
    if (error instanceof AgentUnavailableError || error instanceof ConflictError) {
      // The agent was archived or deleted: the contact cannot be called by this campaign.
      placementContexts.forget(placementKey(campaign));
      await endUndialable(campaign, contact, { status: 'failed', error: 'The agent is archived or deleted' });
      return { kind: 'agent' };
    }
    throw error;
  }
}

/**
 * Dials up to `count` due contacts of a running campaign, concurrently; the outcomes include the
 * contacts a fetch moved on instead (rescheduled or finished).
 */
export async function dispatchDue(campaign: CampaignRecord, now: Date, count: number): Promise<ContactOutcome[]> {
  const orgId = campaign.organization_id;
  const { contacts: placeable, settled: outcomes } = await takeDue(campaign, now, count);
  if (placeable.length === 0) return outcomes;

  const runIds = await takeRunIds(placeable.length);
  let stopped = false;
  const place = async (contact: ContactRecord, runId: number): Promise<ContactOutcome> => {
    if (stopped) return 'stopped';
    try {
      const placement = await placeContact(campaign, contact, runId, now, [
        contactStore.campaignRunningCheck(orgId, campaign.id),
      ]);
      if (placement.kind === 'refused' && placement.index === 1) stopped = true;
      return placement.kind === 'placed'
        ? 'placed'
        : placement.kind === 'capacity'
          ? 'capacity'
          : stopped
            ? 'stopped'
            : 'skipped';
    } catch (error) {
      // Either the run exists and was ended as failed (placeCallForAgent), and its outcome moves the
      // contact on, or the claim wrote nothing and the contact is fetched again once its hand-out lapses.
      logger.error('Campaign call could not be started', { row: contact.row, error: String(error) });
      return 'placed';
    }
  };
  const placed: ContactOutcome[] = new Array(placeable.length);
  let next = 0;
  const worker = async () => {
    while (next < placeable.length) {
      const index = next++;
      placed[index] = await place(placeable[index]!, runIds[index]!).finally(() => {
        queueOf(campaign).claiming -= 1;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CLAIM_CONCURRENCY, placeable.length) }, worker));
  if (stopped) dropQueue(campaign);
  return [...outcomes, ...placed];
}

/** What became of a call's outcome handed to `dispatchWithOutcome`. */
export type RefillResult =
  /** Written with the claim of the next due contact, whose call is placed. */
  | 'placed'
  /** Not written: nothing could be dialed (none due, no channel, the campaign stopped); apply it alone. */
  | 'not_placed'
  /** Not written: the contact had moved on already (a repeated report), so nothing is to be done. */
  | 'outcome_refused'
  /** Not written: an item of `alongside` was refused by its condition. */
  | 'alongside_refused';

/**
 * The channel a campaign call freed dials the campaign's next due contact, and the call's outcome
 * is written in the same transaction as that contact's claim (with `alongside` items): one write
 * for both, and the outcome is applied exactly once either way.
 */
export async function dispatchWithOutcome(
  campaign: CampaignRecord,
  now: Date,
  outcome: contactStore.ContactOutcome,
  alongside: TransactItem[],
): Promise<RefillResult> {
  const orgId = campaign.organization_id;
  const items = contactStore.contactOutcomeItems(orgId, campaign.id, outcome, { withClaim: true });
  for (;;) {
    const { contacts } = await takeDue(campaign, now, 1);
    const contact = contacts[0];
    if (!contact) return 'not_placed';
    try {
      // A stale queue entry of the very contact whose outcome this is: one transaction names an item once.
      if (contact.row === outcome.row) continue;
      const [runId] = await takeRunIds(1);
      const placement = await placeContact(campaign, contact, runId!, now, [
        items.campaign!,
        items.contact,
        ...alongside,
      ]);
      if (placement.kind === 'placed') return 'placed';
      if (placement.kind === 'capacity' || placement.kind === 'agent') return 'not_placed';
      if (placement.kind === 'refused' && placement.index === 1) {
        dropQueue(campaign);
        return 'not_placed';
      }
      if (placement.kind === 'refused' && placement.index === 2) return 'outcome_refused';
      if (placement.kind === 'refused' && placement.index > 2) return 'alongside_refused';
      // Another dispatcher claimed the contact: the next one.
    } finally {
      queueOf(campaign).claiming -= 1;
    }
  }
}
