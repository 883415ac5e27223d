import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DueEntry } from '../domain/due-tasks.ts';
import { keys } from './keys.ts';
import { db, tableName, type TransactItem } from './table.ts';

/** A due entry as the scheduled function reads it: whose task it is, and where it stands. */
export interface DueEntryRef {
  organizationId: number;
  agentId: number;
  memoryId: string;
  entry: DueEntry;
}

/** The write that arms a task's due entry (announce at `due_at`) or disarms it, in its memory's transaction. */
export function dueEntryWrite(
  orgId: number,
  agentId: number,
  memoryId: string,
  change: { arm: string } | 'disarm',
): TransactItem {
  const key = keys.dueTask(orgId, agentId, memoryId);
  if (change === 'disarm') return { Delete: { TableName: tableName(), Key: key } };
  const entry: DueEntry = { due_at: change.arm, phase: 'announce', attempts: 0 };
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...key,
        ...keys.dueTaskIndex(orgId, agentId, memoryId, change.arm),
        type: 'task_due',
        organization_id: orgId,
        agent_id: agentId,
        memory_id: memoryId,
        ...entry,
      },
    },
  };
}

/** The entries due at `now`, soonest first, at most `limit` (every organization's: one Query of the index). */
export async function dueEntries(now: string, limit: number): Promise<DueEntryRef[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :now',
      ExpressionAttributeValues: { ':pk': 'TASKS#DUE', ':now': `${now}#~` },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    organizationId: Number(item.organization_id),
    agentId: Number(item.agent_id),
    memoryId: String(item.memory_id),
    entry: { due_at: String(item.due_at), phase: item.phase as DueEntry['phase'], attempts: Number(item.attempts) },
  }));
}

/** The entry as read is still there (no other run of the function, no new due_at, moved it). */
const asRead = (entry: DueEntry) => ({
  ConditionExpression: '#due = :due AND #phase = :phase AND #attempts = :attempts',
  values: { ':due': entry.due_at, ':phase': entry.phase, ':attempts': entry.attempts },
});
// Names, not words: DynamoDB reserves many plain words.
const NAMES = { '#due': 'due_at', '#phase': 'phase', '#attempts': 'attempts' };

/** Moves the entry to its next step at `at`; false when it changed since it was read. */
export async function advanceDueEntry(
  ref: DueEntryRef,
  next: { phase: DueEntry['phase']; at: string; attempts: number },
): Promise<boolean> {
  const condition = asRead(ref.entry);
  return conditional(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.dueTask(ref.organizationId, ref.agentId, ref.memoryId),
      UpdateExpression: 'SET #phase = :nextPhase, #attempts = :nextAttempts, gsi1sk = :at',
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: {
        ...condition.values,
        ':nextPhase': next.phase,
        ':nextAttempts': next.attempts,
        ':at': keys.dueTaskIndex(ref.organizationId, ref.agentId, ref.memoryId, next.at).gsi1sk,
      },
    }),
  );
}

/** Removes the entry (its steps are done, or it is stale); false when it changed since it was read. */
export async function removeDueEntry(ref: DueEntryRef): Promise<boolean> {
  const condition = asRead(ref.entry);
  return conditional(
    new DeleteCommand({
      TableName: tableName(),
      Key: keys.dueTask(ref.organizationId, ref.agentId, ref.memoryId),
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: condition.values,
    }),
  );
}

async function conditional(command: UpdateCommand | DeleteCommand): Promise<boolean> {
  try {
    await db().send(command as UpdateCommand);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
