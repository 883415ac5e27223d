import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { reserveSlot } from '../domain/call-rate.ts';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

/**
 * Reserves the next send slot of a provider account (one item per account, shared by every
 * campaign and direct call using it): read, then a conditional write that fails if another
 * dialer reserved in between, in which case it reads again. Returns the slot (epoch ms), or
 * undefined without reserving anything when that slot is further than `maxWaitMs` away.
 */
export async function reserveCallSlot(
  accountKey: string,
  callsPerSecond: number,
  maxWaitMs: number,
  now = Date.now,
): Promise<{ slotAt: number } | { waitMs: number }> {
  const key = keys.callRateBucket(accountKey);
  for (;;) {
    const current = (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })))
      .Item as { next_free_at?: number } | undefined;
    const at = now();
    const reservation = reserveSlot(current?.next_free_at, at, callsPerSecond);
    if (reservation.slotAt - at > maxWaitMs) return { waitMs: reservation.slotAt - at };
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...key, type: 'callRateBucket', next_free_at: reservation.nextFreeAt },
          ConditionExpression: current ? 'next_free_at = :seen' : 'attribute_not_exists(pk)',
          ExpressionAttributeValues: current ? { ':seen': current.next_free_at } : undefined,
        }),
      );
      return { slotAt: reservation.slotAt };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
