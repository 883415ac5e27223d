import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunRef } from '../domain/run-ref.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, sendTransaction, tableName } from './table.ts';

export interface WebhookRecord {
  id: string;
  organization_id: number;
  url: string;
  events: string[];
  /** The Standard Webhooks signing secret (`whsec_…`), encrypted (shared/crypto/secret-box.ts). */
  secret_ciphertext: string;
  /** During a rotation's overlap window: the previous secret (encrypted), also signed with until then. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
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

const cancelledBy = (error: unknown, index: number): boolean =>
  error instanceof TransactionCanceledException &&
  error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

/** Creates the webhook and counts it, in one transaction: false when the organization has `cap` already. */
export async function insertWebhook(webhook: WebhookRecord, cap: number): Promise<boolean> {
  try {
    await sendTransaction([
      {
        Update: {
          TableName: tableName(),
          Key: keys.webhookCount(webhook.organization_id),
          UpdateExpression: 'ADD webhook_count :one',
          ConditionExpression: 'attribute_not_exists(webhook_count) OR webhook_count < :cap',
          ExpressionAttributeValues: { ':one': 1, ':cap': cap },
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.webhook(webhook.organization_id, webhook.id), type: 'webhook', ...webhook },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancelledBy(error, 0)) return false;
    throw error;
  }
}

/** A conditional update of an endpoint; undefined when the condition fails. */
async function updateWebhookIf(
  orgId: number,
  webhookId: string,
  update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<WebhookRecord | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(orgId, webhookId),
        ...update,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<WebhookRecord>(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Replaces the events an endpoint subscribes to; undefined when it does not exist. */
export async function updateEvents(
  orgId: number,
  webhookId: string,
  events: string[],
): Promise<WebhookRecord | undefined> {
  return updateWebhookIf(orgId, webhookId, {
    UpdateExpression: 'SET events = :events',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':events': events },
  });
}

/**
 * Replaces the signing secret, keeping the current one as the previous until `previousExpiresAt`.
 * Conditional on the secret the caller read, so two concurrent rotations cannot both win.
 */
export async function rotateSecret(
  orgId: number,
  webhookId: string,
  current: string,
  next: string,
  previousExpiresAt: string,
): Promise<WebhookRecord | undefined> {
  return updateWebhookIf(orgId, webhookId, {
    UpdateExpression:
      'SET secret_ciphertext = :next, previous_secret_ciphertext = :current, previous_secret_expires_at = :expires',
    ConditionExpression: 'secret_ciphertext = :current',
    ExpressionAttributeValues: { ':next': next, ':current': current, ':expires': previousExpiresAt },
  });
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
  try {
    await sendTransaction([
      {
        Delete: {
          TableName: tableName(),
          Key: keys.webhook(orgId, webhookId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.webhookCount(orgId),
          UpdateExpression: 'ADD webhook_count :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancelledBy(error, 0)) return false;
    throw error;
  }
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

type DeliveryKey = Pick<DeliveryRecord, 'webhook_id' | 'created_at' | 'message_id'>;

const messageKey = (orgId: number, delivery: Pick<DeliveryRecord, 'webhook_id' | 'message_id'>) =>
  keys.deliveryMessage(orgId, delivery.webhook_id, delivery.message_id);

/** The pending-index attributes of a delivery's message item: set while pending, removed once final. */
const pendingIndex = (
  orgId: number,
  delivery: Pick<DeliveryRecord, 'webhook_id' | 'message_id'>,
  nextAttemptAt: string,
) => keys.pendingDeliveryIndex(nextAttemptAt, orgId, delivery.webhook_id, delivery.message_id);

/**
 * Creates the delivery of one event to one endpoint, once: its message item (keyed by the
 * deterministic webhook-id) and the delivery record, in one transaction. A repeated fan-out of the
 * same event finds the message item and gets the existing delivery's `created_at` back instead.
 * A delivery about a run is created only while the run exists: an event fanned out after the run's
 * deletion leaves no copy of its payload (`run_deleted`).
 */
export async function insertDelivery(
  orgId: number,
  delivery: DeliveryRecord,
): Promise<{ created: boolean; createdAt: string } | 'run_deleted'> {
  const runExists = delivery.run
    ? [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.run(orgId, delivery.run.agentId, delivery.run.runId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ]
    : [];
  try {
    await sendTransaction([
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...messageKey(orgId, delivery),
            ...pendingIndex(orgId, delivery, delivery.next_attempt_at ?? delivery.created_at),
            type: 'webhookMessage',
            organization_id: orgId,
            webhook_id: delivery.webhook_id,
            message_id: delivery.message_id,
            created_at: delivery.created_at,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...deliveryKey(orgId, delivery),
            ...(delivery.run
              ? keys.deliveryByRunIndex(orgId, delivery.run.agentId, delivery.run.runId, delivery.message_id)
              : {}),
            type: 'webhookDelivery',
            ...delivery,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...runExists,
    ]);
    return { created: true, createdAt: delivery.created_at };
  } catch (error) {
    if (runExists.length && cancelledBy(error, 2)) return 'run_deleted';
    if (!cancelledBy(error, 0)) throw error;
    const existing = await findDeliveryKey(orgId, delivery.webhook_id, delivery.message_id);
    return { created: false, createdAt: existing?.created_at ?? delivery.created_at };
  }
}

/** The key of a delivery from its webhook-id (message id). */
export async function findDeliveryKey(
  orgId: number,
  webhookId: string,
  messageId: string,
): Promise<DeliveryKey | undefined> {
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.deliveryMessage(orgId, webhookId, messageId),
      ConsistentRead: true,
    }),
  );
  return result.Item
    ? { webhook_id: webhookId, message_id: messageId, created_at: result.Item.created_at as string }
    : undefined;
}

/**
 * Appends an attempt and sets the outcome, and keeps the message item in the pending index while
 * the delivery is pending. False when the record is gone (the run was deleted meanwhile): the
 * delivery then stops.
 */
export async function recordAttempt(
  orgId: number,
  delivery: DeliveryKey,
  attempt: DeliveryAttempt,
  status: DeliveryStatus,
  nextAttemptAt: string | null,
): Promise<boolean> {
  return updateDelivery(
    orgId,
    delivery,
    {
      UpdateExpression: 'SET attempts = list_append(attempts, :attempt), #status = :status, next_attempt_at = :next',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':attempt': [attempt], ':status': status, ':next': nextAttemptAt },
    },
    status === 'pending' ? nextAttemptAt : null,
  );
}

/** A final delivery made pending again for a manual retry; false unless it was final. */
export async function reopenDelivery(orgId: number, delivery: DeliveryKey, now: string): Promise<boolean> {
  return updateDelivery(
    orgId,
    delivery,
    {
      UpdateExpression: 'SET #status = :pending, next_attempt_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND #status <> :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending', ':now': now },
    },
    now,
  );
}

async function updateDelivery(
  orgId: number,
  delivery: DeliveryKey,
  update: {
    UpdateExpression: string;
    ConditionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  },
  pendingUntil: string | null,
): Promise<boolean> {
  const index = pendingUntil ? pendingIndex(orgId, delivery, pendingUntil) : undefined;
  try {
    await sendTransaction([
      { Update: { TableName: tableName(), Key: deliveryKey(orgId, delivery), ...update } },
      {
        Update: {
          TableName: tableName(),
          Key: messageKey(orgId, delivery),
          UpdateExpression: index ? 'SET gsi1pk = :pk, gsi1sk = :sk' : 'REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(pk)',
          ...(index ? { ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk } } : {}),
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancelledBy(error, 0) || cancelledBy(error, 1)) return false;
    throw error;
  }
}

/** Deliveries left pending, oldest due first (a local stack restart resumes them). */
export async function listPendingDeliveries(limit: number): Promise<(DeliveryKey & { organization_id: number })[]> {
  const items = await queryItems(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': 'DELIVERIES#PENDING' },
    },
    0,
    limit,
  );
  return items.map((item) => ({
    organization_id: item.organization_id as number,
    webhook_id: item.webhook_id as string,
    message_id: item.message_id as string,
    created_at: item.created_at as string,
  }));
}

export async function getDelivery(orgId: number, delivery: DeliveryKey): Promise<DeliveryRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: deliveryKey(orgId, delivery), ConsistentRead: true }),
  );
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
    ExpressionAttributeValues: {
      ':pk': keys.deliveryByRunIndex(ref.organizationId, ref.agentId, ref.runId, '').gsi1pk,
    },
  });
  // Each delivery and its message item.
  const itemKeys = items.flatMap((item) => [
    { pk: item.pk, sk: item.sk },
    {
      pk: item.pk,
      sk: keys.deliveryMessage(ref.organizationId, item.webhook_id as string, item.message_id as string).sk,
    },
  ]);
  for (let i = 0; i < itemKeys.length; i += 25) {
    const batch = itemKeys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    let pending: typeof batch | undefined = batch;
    // BatchWrite may leave items unprocessed under throttling; retry them until none remain.
    while (pending?.length) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = result.UnprocessedItems?.[tableName()] as typeof batch | undefined;
    }
  }
}
