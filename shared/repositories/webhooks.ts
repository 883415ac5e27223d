import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunRef } from '../domain/run-ref.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

export interface WebhookRecord {
  id: string;
  organization_id: number;
  url: string;
  events: string[];
  /** Standard Webhooks signing secret (`whsec_…`); encrypted at rest by the table's encryption. */
  secret: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRecord {
  /** The Standard Webhooks `webhook-id`: the same on every retry of one event. */
  message_id: string;
  webhook_id: string;
  event_type: string;
  run: RunRef | null;
  status: DeliveryStatus;
  created_at: string;
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  /** The exact body sent on every attempt (signed as is). */
  payload: string;
}

const strip = <T>(item: Record<string, unknown>): T => {
  const { type: _type, ...rest } = stripKeys(item);
  return rest as T;
};

export async function putWebhook(webhook: WebhookRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.webhook(webhook.organization_id, webhook.id), type: 'webhook', ...webhook },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getWebhook(orgId: number, webhookId: string): Promise<WebhookRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhook(orgId, webhookId) }));
  return result.Item ? strip<WebhookRecord>(result.Item) : undefined;
}

const webhooksQuery = (orgId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.webhookSkPrefix },
});

/** Every webhook of the organization (a handful per organization: fan-out reads them all). */
export async function listWebhooks(orgId: number): Promise<WebhookRecord[]> {
  return (await queryItems(webhooksQuery(orgId))).map((item) => strip<WebhookRecord>(item));
}

export async function deleteWebhook(orgId: number, webhookId: string): Promise<boolean> {
  const result = await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.webhook(orgId, webhookId), ReturnValues: 'ALL_OLD' }));
  return result.Attributes !== undefined;
}

export async function disableWebhook(orgId: number, webhookId: string, reason: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(orgId, webhookId),
        UpdateExpression: 'SET #status = :disabled, disabled_reason = :reason',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'disabled', ':reason': reason },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

const deliveryKey = (orgId: number, delivery: Pick<DeliveryRecord, 'webhook_id' | 'created_at' | 'message_id'>) =>
  keys.delivery(orgId, delivery.webhook_id, delivery.created_at, delivery.message_id);

/** Creates the delivery record once; a repeated fan-out of the same event finds it there. */
export async function insertDelivery(orgId: number, delivery: DeliveryRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...deliveryKey(orgId, delivery),
          ...(delivery.run ? keys.deliveryByRunIndex(orgId, delivery.run.agentId, delivery.run.runId, delivery.message_id) : {}),
          type: 'webhookDelivery',
          ...delivery,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Appends an attempt and sets the outcome. False when the record is gone (the run was deleted
 * meanwhile): the delivery then stops.
 */
export async function recordAttempt(
  orgId: number,
  delivery: Pick<DeliveryRecord, 'webhook_id' | 'created_at' | 'message_id'>,
  attempt: DeliveryAttempt,
  status: DeliveryStatus,
  nextAttemptAt: string | null,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(orgId, delivery),
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt), #status = :status, next_attempt_at = :next',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':attempt': [attempt], ':status': status, ':next': nextAttemptAt },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function getDelivery(orgId: number, delivery: Pick<DeliveryRecord, 'webhook_id' | 'created_at' | 'message_id'>): Promise<DeliveryRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: deliveryKey(orgId, delivery), ConsistentRead: true }));
  return result.Item ? strip<DeliveryRecord>(result.Item) : undefined;
}

const deliveriesQuery = (orgId: number, webhookId: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.deliveryPartition(orgId, webhookId), ':prefix': keys.deliverySkPrefix },
  ScanIndexForward: false,
});

export async function listDeliveries(orgId: number, webhookId: string, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(deliveriesQuery(orgId, webhookId)),
    queryItems(deliveriesQuery(orgId, webhookId), offset, limit),
  ]);
  return { items: items.map((item) => strip<DeliveryRecord>(item)), totalCount };
}

/** Removes every delivery record about a run (run deletion). */
export async function deleteDeliveriesOfRun(ref: RunRef): Promise<void> {
  const items = await queryItems({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.deliveryByRunIndex(ref.organizationId, ref.agentId, ref.runId, '').gsi1pk },
  });
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    let pending: typeof batch | undefined = batch;
    // BatchWrite may leave items unprocessed under throttling; retry them until none remain.
    while (pending?.length) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = result.UnprocessedItems?.[tableName()] as typeof batch | undefined;
    }
  }
}
