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
 */
/**
 * The account's next free slot as last seen here (a write's result, or a refused condition's item):
 * which of the two writes to try first. Wrong only when the account changed state meanwhile.
 */
const lastSeenNextFree = new Map<string, number>();

export async function reserveCallSlot(
  accountKey: string,
  callsPerSecond: number,
  maxWaitMs: number,
  now = Date.now,
): Promise<{ slotAt: number } | { waitMs: number }> {
  const key = keys.callRateBucket(accountKey);
  const interval = slotIntervalMs(callsPerSecond);
  const tolerance = burstToleranceMs(callsPerSecond);
  for (;;) {
    const at = now();
    const pacing = { at, now, interval, tolerance, maxWaitMs };
    const seen = lastSeenNextFree.get(accountKey);
    const attempts =
      seen === undefined || seen >= at - tolerance ? [takeQueuedSlot, takeIdleSlot] : [takeIdleSlot, takeQueuedSlot];
    for (const attempt of attempts) {
      const result = await attempt(key, pacing);
      if (result.nextFree !== undefined) lastSeenNextFree.set(accountKey, result.nextFree);
      if (result.reservation) return result.reservation;
    }
    // Both conditions failed: another dialer moved the bucket in between. Look again.
  }
}

type Bucket = ReturnType<typeof keys.callRateBucket>;
/** A slot taken or a wait (none when the bucket was not in the state the write expects), and the bucket's value as seen. */
interface Attempt {
  reservation?: { slotAt: number } | { waitMs: number };
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
}

/** The account is busy (its next free slot is at most the tolerance behind now, or ahead within the wait): take it, move the next one on. */
async function takeQueuedSlot(key: Bucket, { at, now, interval, tolerance, maxWaitMs }: Pacing): Promise<Attempt> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET next_free_at = next_free_at + :interval',
        ConditionExpression: 'next_free_at BETWEEN :earliest AND :latest',
        ExpressionAttributeValues: { ':interval': interval, ':earliest': at - tolerance, ':latest': at + maxWaitMs },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const nextFree = Attributes!.next_free_at as number;
    return { reservation: { slotAt: nextFree - interval }, nextFree };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const seen = nextFreeOf(error.Item);
    return {
      reservation: seen !== undefined && seen > now() + maxWaitMs ? { waitMs: seen - now() } : undefined,
      nextFree: seen,
    };
  }
}

/** The account is idle (nothing queued, or the next free slot is further behind than the tolerance). */
async function takeIdleSlot(key: Bucket, { at, interval, tolerance }: Pacing): Promise<Attempt> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET next_free_at = :next, #type = :type',
        ConditionExpression: 'attribute_not_exists(next_free_at) OR next_free_at < :earliest',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':next': at + interval, ':earliest': at - tolerance, ':type': 'callRateBucket' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { reservation: { slotAt: at }, nextFree: at + interval };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { nextFree: nextFreeOf(error.Item) };
  }
}
