/**
 * A run's log lines, each an item of its own in the run's log partition (keys.ts): the run item
 * stays far below DynamoDB's 400 KB however long the call or chat, so no line is ever refused for
 * the item's size. A line is written in the same transaction as the change it records (its
 * condition on the run checked there), so a line exists exactly when its change does.
 */
import { randomBytes } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, queryPages, refusedAt, sendTransaction, tableName, type TransactItem } from './table.ts';
import type { RunLogLine } from '../domain/run.ts';
import type { RunRef } from '../domain/run-ref.ts';

/** A line longer than this is cut (with a mark): a few KB says what happened; an item stays small. */
export const MAX_LOG_MESSAGE_CHARS = 8_000;

/** Orders the lines one process writes within the same millisecond. */
let sequence = 0;

/** The Put of one log line of `ref`, for the transaction of the change it records. */
export function runLogItem(ref: RunRef, line: RunLogLine): TransactItem {
  sequence = (sequence + 1) % 1e10;
  const message =
    line.message.length > MAX_LOG_MESSAGE_CHARS
      ? `${line.message.slice(0, MAX_LOG_MESSAGE_CHARS)}… (cut)`
      : line.message;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        pk: keys.runLogPartition(ref.organizationId, ref.agentId, ref.runId),
        sk: keys.runLogSk(line.timestamp, sequence, randomBytes(4).toString('hex')),
        type: 'runLog',
        timestamp: line.timestamp,
        level: line.level,
        message,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Appends a line to a run in progress: false when the run has ended (or is gone), and nothing is
 * written then. A failure to write is thrown, for the caller to surface.
 */
export async function appendRunLog(ref: RunRef, line: RunLogLine): Promise<boolean> {
  try {
    await sendTransaction([
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': 'in_progress' },
        },
      },
      runLogItem(ref, line),
    ]);
    return true;
  } catch (error) {
    if (refusedAt(error, 0)) return false;
    throw error;
  }
}

const logQuery = (ref: RunRef) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: {
    ':pk': keys.runLogPartition(ref.organizationId, ref.agentId, ref.runId),
    ':prefix': keys.runLogSkPrefix,
  },
});

/**
 * The run's lines in time order: those of its log items (every page of a Query) and, for a run
 * written before log items existed, those on the run item itself (`legacy`).
 */
export async function listRunLogs(ref: RunRef, legacy: readonly RunLogLine[] = []): Promise<RunLogLine[]> {
  const lines: RunLogLine[] = [];
  for await (const page of queryPages({ ...logQuery(ref), ConsistentRead: true })) {
    for (const item of page)
      lines.push({ timestamp: String(item.timestamp), level: String(item.level), message: String(item.message) });
  }
  if (legacy.length === 0) return lines;
  // Stable: equal timestamps keep the item's lines first, then the log items' own order.
  return [...legacy, ...lines].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/**
 * Deletes every item of the run's partition (its deletion): its log lines and its text messages
 * (bodies and numbers; their counts and cost stay on the billing record), 25 per BatchWriteItem,
 * unprocessed ones again.
 */
export async function deleteRunPartition(ref: RunRef): Promise<void> {
  const table = tableName();
  const partition = {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.runLogPartition(ref.organizationId, ref.agentId, ref.runId) },
  };
  for await (const page of queryPages({ ...partition, ProjectionExpression: 'pk, sk' })) {
    for (let i = 0; i < page.length; i += 25) {
      let pending: Record<string, unknown>[] | undefined = page
        .slice(i, i + 25)
        .map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
      while (pending?.length) {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
        pending = result.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
      }
    }
  }
}
