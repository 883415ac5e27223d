import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { burstToleranceMs, slotIntervalMs } from '../domain/call-rate.ts';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

/**
 * Reserves the next send slot of a provider account (one item per account, shared by every
 * campaign and direct call using it; the bucket is one timestamp, the next free slot): one
 * conditional write per dial, however many dialers run at once (two when the account changed
 * state since this process last saw it, e.g. dialers arriving together after a quiet period):
 * - the account is busy (its next free slot is within the burst tolerance behind now, or ahead
 *   within `maxWaitMs`): take that slot and move the next one on by one interval, atomically;
 * - it is idle (no slot queued, or the next free one is further behind: a quiet period is saved
 *   up for a burst only as far as the tolerance): the slot is now;
 * - its next free slot is further than `maxWaitMs` away: nothing is reserved, the wait is returned.
 *
 * Dialers of one account in one process (a dispatcher's batch, or the whole local stack) share
 * their writes: while one is in flight the next ones wait, then take consecutive slots together
 * in one write. Concurrent dialers never race each other's conditions in this process, so a burst
 * of them after a quiet period costs two writes, not one refused write each.
 */
export function reserveCallSlot(
  accountKey: string,
  callsPerSecond: number,
  maxWaitMs: number,
  now = Date.now,
): Promise<Reservation> {
  const queue = queues.get(accountKey) ?? { waiting: [], writing: false };
  queues.set(accountKey, queue);
  return new Promise((resolve, reject) => {
    queue.waiting.push({ callsPerSecond, maxWaitMs, now, resolve, reject });
    if (!queue.writing) void reserveQueued(accountKey, queue);
  });
}

type Reservation = { slotAt: number } | { waitMs: number };

interface Dialer {
  callsPerSecond: number;
  maxWaitMs: number;
  now: () => number;
  resolve: (reservation: Reservation) => void;
  reject: (error: unknown) => void;
}

/** Per account: the dialers waiting for the write in flight to finish. */
const queues = new Map<string, { waiting: Dialer[]; writing: boolean }>();

async function reserveQueued(accountKey: string, queue: { waiting: Dialer[]; writing: boolean }): Promise<void> {
  queue.writing = true;
  while (queue.waiting.length > 0) {
    // One write for the dialers asking alike (the same rate and wait: the same account's settings).
    const [first] = queue.waiting;
    const batch = queue.waiting.filter(
      (dialer) => dialer.callsPerSecond === first!.callsPerSecond && dialer.maxWaitMs === first!.maxWaitMs,
    );
    queue.waiting = queue.waiting.filter((dialer) => !batch.includes(dialer));
    try {
      const reservations = await reserveSlots(
        accountKey,
        batch.length,
        first!.callsPerSecond,
        first!.maxWaitMs,
        first!.now,
      );
      batch.forEach((dialer, index) => dialer.resolve(reservations[index]!));
    } catch (error) {
      for (const dialer of batch) dialer.reject(error);
    }
  }
  queue.writing = false;
  queues.delete(accountKey);
}

/**
 * The account's next free slot as last seen here (a write's result, or a refused condition's item):
 * which of the two writes to try first. Wrong only when the account changed state meanwhile.
 */
const lastSeenNextFree = new Map<string, number>();

/** `count` consecutive slots, as many as fall within `maxWaitMs`; the dialers beyond them get the wait. */
async function reserveSlots(
  accountKey: string,
  count: number,
  callsPerSecond: number,
  maxWaitMs: number,
  now: () => number,
): Promise<Reservation[]> {
  const key = keys.callRateBucket(accountKey);
  const interval = slotIntervalMs(callsPerSecond);
  const tolerance = burstToleranceMs(callsPerSecond);
  for (;;) {
    const at = now();
    const pacing = { at, now, interval, tolerance, maxWaitMs, count };
    const seen = lastSeenNextFree.get(accountKey);
    const attempts =
      seen === undefined || seen >= at - tolerance
        ? [takeQueuedSlots, takeIdleSlots]
        : [takeIdleSlots, takeQueuedSlots];
    for (const attempt of attempts) {
      const result = await attempt(key, pacing);
      if (result.nextFree !== undefined) lastSeenNextFree.set(accountKey, result.nextFree);
      if (result.first !== undefined) {
        const { first } = result;
        const taken = result.taken!;
        const nextFree = first + taken * interval;
        return Array.from({ length: count }, (_, index) =>
          index < taken ? { slotAt: first + index * interval } : { waitMs: nextFree - now() },
        );
      }
      if (result.waitMs !== undefined) return Array.from({ length: count }, () => ({ waitMs: result.waitMs! }));
    }
    // Both conditions failed: another dialer moved the bucket in between. Look again.
  }
}

type Bucket = ReturnType<typeof keys.callRateBucket>;
/** Slots taken (the first and how many) or a wait (neither when the bucket was not in the state the write expects), and the bucket's value as seen. */
interface Attempt {
  first?: number;
  taken?: number;
  waitMs?: number;
  nextFree: number | undefined;
}

const nextFreeOf = (item: Record<string, AttributeValue> | undefined): number | undefined =>
  item ? (unmarshall(item).next_free_at as number | undefined) : undefined;

interface Pacing {
  /** When the reservation was asked for; `now` is read again for a wait, as a busy client may send late. */
  at: number;
  now: () => number;
  interval: number;
  tolerance: number;
  maxWaitMs: number;
  /** Slots wanted. */
  count: number;
}

/** How many of `count` consecutive slots from `first` fall within the wait. */
const fitting = ({ at, interval, maxWaitMs, count }: Pacing, first: number) =>
  Math.max(0, Math.min(count, Math.floor((at + maxWaitMs - first) / interval) + 1));

/**
 * The account is busy (its next free slot is at most the tolerance behind now, or ahead within the
 * wait): take the slots from it, move the next one on. The condition holds the slots taken within
 * the wait; a bucket further on answers with its value, and fewer slots are tried.
 */
async function takeQueuedSlots(key: Bucket, pacing: Pacing): Promise<Attempt> {
  const { at, now, interval, tolerance, maxWaitMs } = pacing;
  let taken = pacing.count;
  for (;;) {
    try {
      const { Attributes } = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET next_free_at = next_free_at + :slots',
          ConditionExpression: 'next_free_at BETWEEN :earliest AND :latest',
          ExpressionAttributeValues: {
            ':slots': taken * interval,
            ':earliest': at - tolerance,
            ':latest': at + maxWaitMs - (taken - 1) * interval,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const nextFree = Attributes!.next_free_at as number;
      return { first: nextFree - taken * interval, taken, nextFree };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const seen = nextFreeOf(error.Item);
      if (seen === undefined || seen < at - tolerance) return { nextFree: seen };
      const fit = fitting(pacing, seen);
      if (fit === 0) return { waitMs: seen - now(), nextFree: seen };
      if (fit >= taken) return { nextFree: seen };
      taken = fit;
    }
  }
}

/** The account is idle (nothing queued, or the next free slot is further behind than the tolerance): the slots start now. */
async function takeIdleSlots(key: Bucket, pacing: Pacing): Promise<Attempt> {
  const { at, interval, tolerance } = pacing;
  const taken = fitting(pacing, at);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET next_free_at = :next, #type = :type',
        ConditionExpression: 'attribute_not_exists(next_free_at) OR next_free_at < :earliest',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':next': at + taken * interval,
          ':earliest': at - tolerance,
          ':type': 'callRateBucket',
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { first: at, taken, nextFree: at + taken * interval };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { nextFree: nextFreeOf(error.Item) };
  }
}
