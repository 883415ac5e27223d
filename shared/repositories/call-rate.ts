import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { slotIntervalMs } from '../domain/call-rate.ts';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

/** Which way the account's last reservation went here: try that way first (one write when it holds). */
const lastFoundIdle = new Map<string, boolean>();

/**
 * Reserves the next send slot of a provider account (one item per account, shared by every
 * campaign and direct call using it; the bucket is one timestamp, the next free slot): one
 * conditional write per dial, however many dialers run at once (two when the account went from
 * idle to busy or back since this process's last dial):
 * - the account is busy (its next free slot is now or later, within `maxWaitMs`): take that slot
 *   and move the next one on by one interval, atomically;
 * - it is idle (no slot queued, or the next free one is past; a quiet period is not saved up
 *   for a burst): the slot is now;
 * - its next free slot is further than `maxWaitMs` away: nothing is reserved, the wait is returned.
 */
export async function reserveCallSlot(
  accountKey: string,
  callsPerSecond: number,
  maxWaitMs: number,
  now = Date.now,
): Promise<{ slotAt: number } | { waitMs: number }> {
  const key = keys.callRateBucket(accountKey);
  const interval = slotIntervalMs(callsPerSecond);
  let idleFirst = lastFoundIdle.get(accountKey) ?? false;
  for (;;) {
    const at = now();
    const attempts = idleFirst ? [takeIdleSlot, takeQueuedSlot] : [takeQueuedSlot, takeIdleSlot];
    for (const attempt of attempts) {
      const result = await attempt(key, at, interval, maxWaitMs);
      if (result === undefined) continue;
      if ('slotAt' in result) lastFoundIdle.set(accountKey, attempt === takeIdleSlot);
      return result;
    }
    // Both conditions failed: another dialer moved the bucket in between. Look again.
    idleFirst = !idleFirst;
  }
}

type Bucket = ReturnType<typeof keys.callRateBucket>;
type Reservation = { slotAt: number } | { waitMs: number } | undefined;

/** The account is busy (its next free slot is now or later, within the wait): take it, move the next one on. */
async function takeQueuedSlot(key: Bucket, at: number, interval: number, maxWaitMs: number): Promise<Reservation> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET next_free_at = next_free_at + :interval',
        ConditionExpression: 'next_free_at BETWEEN :now AND :latest',
        ExpressionAttributeValues: { ':interval': interval, ':now': at, ':latest': at + maxWaitMs },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { slotAt: (Attributes!.next_free_at as number) - interval };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const seen = error.Item ? (unmarshall(error.Item).next_free_at as number | undefined) : undefined;
    return seen !== undefined && seen > at + maxWaitMs ? { waitMs: seen - at } : undefined;
  }
}

/** The account is idle (nothing queued, or the next free slot is past: a quiet period is not saved up for a burst). */
async function takeIdleSlot(key: Bucket, at: number, interval: number): Promise<Reservation> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET next_free_at = :next, #type = :type',
        ConditionExpression: 'attribute_not_exists(next_free_at) OR next_free_at < :now',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':next': at + interval, ':now': at, ':type': 'callRateBucket' },
      }),
    );
    return { slotAt: at };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return undefined;
  }
}
