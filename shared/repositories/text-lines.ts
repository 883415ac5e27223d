/**
 * Which run a caller's text belongs to: when a phone call is answered, its organization notes the
 * run under the caller's number (keys.ts `textLine`: one item per caller, the latest call wins), so
 * a text from that number to the organization's number finds the call it replies to with one
 * GetItem, during the call or within REPLY_WINDOW_SECONDS of its answer (the item's TTL).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { REPLY_WINDOW_SECONDS } from '../domain/text-messages.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { keys } from './keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';
import { db, tableName } from './table.ts';

export interface TextLine {
  ref: RunRef;
  /** When the call was answered: a text is the call's reply only within REPLY_WINDOW_SECONDS of it. */
  answeredAt: string;
}

/** Notes `ref` as the caller's latest answered call with its organization. */
export async function noteTextLine(ref: RunRef, caller: string, answeredAt: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.textLine(ref.organizationId, caller),
        type: 'textLine',
        agent_id: ref.agentId,
        run_id: ref.runId,
        answered_at: answeredAt,
        [TABLE_SCHEMA.ttlAttribute]: Math.floor(Date.parse(answeredAt) / 1000) + REPLY_WINDOW_SECONDS,
      },
    }),
  );
}

/** The caller's latest answered call with the organization, while its reply window lasts (TTL deletion lags). */
export async function findTextLine(orgId: number, caller: string, now = new Date()): Promise<TextLine | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.textLine(orgId, caller), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const answeredAt = String(Item.answered_at);
  if (Date.parse(answeredAt) + REPLY_WINDOW_SECONDS * 1000 < now.getTime()) return undefined;
  return {
    ref: { organizationId: orgId, agentId: Number(Item.agent_id), runId: Number(Item.run_id) },
    answeredAt,
  };
}

/**
 * Forgets the caller's line when it is `ref`'s (the run is being deleted: the item names the
 * caller's number); a later call's line stays.
 */
export async function forgetTextLine(ref: RunRef, caller: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.textLine(ref.organizationId, caller),
        ConditionExpression: 'agent_id = :agent AND run_id = :run',
        ExpressionAttributeValues: { ':agent': ref.agentId, ':run': ref.runId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
