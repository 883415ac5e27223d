/**
 * An ended run's `call.completed` in the event outbox (its gsi1 entry until the event is on the
 * bus) and its post-call analysis, which keeps the entry until it is recorded.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, tableName, type TransactItem } from './table.ts';
import type { RunRef } from '../domain/run-ref.ts';
import type { RunAnalysis } from '../schemas/call-analysis.ts';

/**
 * The run's `call.completed` is on the bus: its outbox index entry goes, unless its analysis is
 * still pending; then the entry stays, noted as published, until the analysis is recorded.
 */
export async function markEventPublished(ref: RunRef, now = new Date()): Promise<void> {
  const key = keys.run(ref.organizationId, ref.agentId, ref.runId);
  const pendingEvent = keys.pendingEventIndex('', 0, 0, 0).gsi1pk;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
        ConditionExpression:
          'gsi1pk = :pending AND (attribute_not_exists(analysis.#status) OR analysis.#status <> :analyzing)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': pendingEvent, ':analyzing': 'pending' },
      }),
    );
    return;
  } catch (error) {
    // Already confirmed (by the outbox or a concurrent report), deleted meanwhile, or analyzing.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET event_published_at = if_not_exists(event_published_at, :now)',
        ConditionExpression: 'gsi1pk = :pending AND analysis.#status = :analyzing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': pendingEvent, ':analyzing': 'pending', ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The confirmation of an ended run's `call.completed`, as an item of a transaction its consumer
 * writes anyway (a campaign call's outcome): the event reached the bus, since it was consumed.
 * A run whose analysis is pending keeps its outbox entry, noted as published (markEventPublished).
 * Refused only when the run was deleted meanwhile.
 */
export function eventConfirmationItem(ref: RunRef, analysisPending: boolean, now = new Date()): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
      ...(analysisPending
        ? {
            UpdateExpression: 'SET event_published_at = if_not_exists(event_published_at, :now)',
            ExpressionAttributeValues: { ':now': now.toISOString() },
          }
        : { UpdateExpression: 'REMOVE gsi1pk, gsi1sk' }),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

/**
 * Records the outcome of a pending post-call analysis; false when it is no longer pending (another
 * attempt recorded it first) or the run is gone.
 */
export async function recordAnalysis(ref: RunRef, analysis: RunAnalysis): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
        UpdateExpression: 'SET analysis = :analysis',
        ConditionExpression: 'analysis.#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':analysis': analysis, ':pending': 'pending' },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
  await releaseAnalyzedRun(ref);
  return true;
}

/**
 * The outbox entry a pending analysis kept goes once the analysis is recorded; an entry whose
 * event was not confirmed yet stays for its confirmation (which removes it then).
 */
export async function releaseAnalyzedRun(ref: RunRef): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk, event_published_at',
        ConditionExpression: 'gsi1pk = :pending AND attribute_exists(event_published_at)',
        ExpressionAttributeValues: { ':pending': keys.pendingEventIndex('', 0, 0, 0).gsi1pk },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
