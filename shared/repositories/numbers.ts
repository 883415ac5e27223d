import type { EndUserData } from '../domain/regulatory-review.ts';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, sendTransaction, tableName, type TransactItem } from './table.ts';

export type NumberStatus = 'active' | 'pending' | 'rejected' | 'suspended';

export interface NumberRecord {
  id: number;
  organization_id: number;
  phone_number: string;
  provider: string;
  status: NumberStatus;
  country_code: string;
  number_type: string;
  capabilities: string[];
  friendly_name: string;
  workflow_id: number | null;
  monthly_cost_usd: number;
  provider_number_id: string | null;
  purchased_at: string;
  assigned_at: string | null;
  created_at: string;
  order_id: number | null;
  order_status: string;
  order_status_reason: string | null;
  outbound_commitment_until: string | null;
  renews_at: string | null;
  /** The customer's own id of the subscriber; required for numbers under regulatory review. */
  end_user_id: number | null;
  consent: boolean;
  end_user: EndUserData | null;
  /**
   * The provider's reference of a regulated number's review: Twilio's Bundle SID (the number is
   * bought with it once approved), Telnyx's number order id (completed by Telnyx once approved).
   */
  review_reference?: string | null;
  /** The provider's news of the review came before its reference was recorded (recordReviewReference). */
  early_review_news?: boolean;
}

const strip = <T>(item: Record<string, unknown>): T => {
  const { type: _type, ...rest } = stripKeys(item);
  return rest as T;
};

const numberItem = (number: NumberRecord) => ({
  ...keys.phoneNumber(number.organization_id, number.id),
  ...(number.status === 'active' && number.renews_at
    ? keys.renewalIndex(number.organization_id, number.id, number.renews_at)
    : {}),
  // A number in the provider's review is looked at by the schedule until it is decided.
  ...(number.status === 'pending' && number.review_reference
    ? keys.reviewIndex(number.organization_id, number.id, number.created_at)
    : {}),
  type: 'phoneNumber',
  ...number,
});

const chargeItem = (orgId: number, numberId: number, at: string, kind: string, amountUsd: number) => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...keys.charge(orgId, at, numberId),
      type: 'charge',
      phone_number_id: numberId,
      kind,
      amount_usd: amountUsd,
      at,
    },
  },
});

const balanceChange = (orgId: number, amountUsd: number, requireFunds: boolean): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.organization(orgId),
    UpdateExpression: 'SET balance_usd = if_not_exists(balance_usd, :zero) + :amount',
    ...(requireFunds ? { ConditionExpression: 'balance_usd >= :needed' } : {}),
    ExpressionAttributeValues: { ':zero': 0, ':amount': amountUsd, ...(requireFunds ? { ':needed': -amountUsd } : {}) },
  },
});

const failedAt = (error: unknown): number[] =>
  error instanceof TransactionCanceledException
    ? (error.CancellationReasons ?? []).flatMap((reason, index) =>
        reason.Code === 'ConditionalCheckFailed' ? [index] : [],
      )
    : [];

/**
 * Creates the number and charges its first month in one transaction: the balance must cover the
 * price (never an overdraft, whatever runs concurrently), and nobody may own the number already.
 */
export async function insertPurchasedNumber(
  number: NumberRecord,
): Promise<'created' | 'insufficient_balance' | 'taken'> {
  try {
    await sendTransaction([
      balanceChange(number.organization_id, -number.monthly_cost_usd, true),
      { Put: { TableName: tableName(), Item: numberItem(number), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.numberClaim(number.phone_number),
            type: 'numberClaim',
            organization_id: number.organization_id,
            phone_number_id: number.id,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      chargeItem(number.organization_id, number.id, number.purchased_at, 'purchase', number.monthly_cost_usd),
    ]);
    return 'created';
  } catch (error) {
    const failed = failedAt(error);
    if (failed.includes(0)) return 'insufficient_balance';
    if (failed.includes(2)) return 'taken';
    throw error;
  }
}

/** Undoes a purchase the provider refused: number and claim gone, the price credited back. */
export async function cancelPurchase(number: NumberRecord, at: string): Promise<void> {
  await sendTransaction([
    balanceChange(number.organization_id, number.monthly_cost_usd, false),
    { Delete: { TableName: tableName(), Key: keys.phoneNumber(number.organization_id, number.id) } },
    { Delete: { TableName: tableName(), Key: keys.numberClaim(number.phone_number) } },
    chargeItem(number.organization_id, number.id, at, 'refund', -number.monthly_cost_usd),
  ]);
}

export async function putNumber(number: NumberRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: numberItem(number) }));
}

/**
 * Records the provider's reference of a pending number's review, only on the number still pending
 * without one: a decision made meanwhile (the operator's) is never written over. Says whether the
 * provider's news of a review came before it (noteEarlyReviewNews), which the caller must then
 * look at; undefined when the number was no longer pending without a reference.
 */
export async function recordReviewReference(
  number: NumberRecord,
  reference: string,
): Promise<{ newsCameFirst: boolean } | undefined> {
  // The schedule's index of reviews under way comes with the reference, as numberItem writes it.
  const index = keys.reviewIndex(number.organization_id, number.id, number.created_at);
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(number.organization_id, number.id),
        UpdateExpression:
          'SET review_reference = :reference, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk REMOVE early_review_news',
        ConditionExpression: `${PENDING_WITHOUT_REFERENCE}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':reference': reference,
          ':gsi1pk': index.gsi1pk,
          ':gsi1sk': index.gsi1sk,
          ':pending': 'pending',
          ':none': null,
        },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return { newsCameFirst: result.Attributes?.early_review_news === true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

const PENDING_WITHOUT_REFERENCE =
  'attribute_exists(pk) AND #status = :pending AND (attribute_not_exists(review_reference) OR review_reference = :none)';

/**
 * The provider's news of a review reached a pending number before its purchase recorded the
 * review's reference: word is left for the purchase, which looks at the review once it has.
 * False when the reference is there by now (the news can then be applied as usual).
 */
export async function noteEarlyReviewNews(number: NumberRecord): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(number.organization_id, number.id),
        UpdateExpression: 'SET early_review_news = :yes',
        ConditionExpression: PENDING_WITHOUT_REFERENCE,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':yes': true, ':pending': 'pending', ':none': null },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function getNumber(orgId: number, numberId: number): Promise<NumberRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.phoneNumber(orgId, numberId), ConsistentRead: true }),
  );
  return result.Item ? strip<NumberRecord>(result.Item) : undefined;
}

/** The organization's number record for an E.164 number, if it owns it. */
export async function findOwnedNumber(orgId: number, e164: string): Promise<NumberRecord | undefined> {
  const claim = await db().send(new GetCommand({ TableName: tableName(), Key: keys.numberClaim(e164) }));
  if (!claim.Item || Number(claim.Item.organization_id) !== orgId) return undefined;
  return getNumber(orgId, Number(claim.Item.phone_number_id));
}

/** Whoever owns an E.164 number on the platform, and its record (incoming calls). */
/** Which of these numbers the platform already holds (any organization, pending ones included). */
export async function claimedNumbers(e164s: readonly string[]): Promise<Set<string>> {
  const table = tableName();
  const claimed = new Set<string>();
  for (let i = 0; i < e164s.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = e164s.slice(i, i + 100).map((e164) => keys.numberClaim(e164));
    while (pending?.length) {
      const result: BatchGetCommandOutput = await db().send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ProjectionExpression: 'pk' } } }),
      );
      for (const item of result.Responses?.[table] ?? []) claimed.add(String(item.pk).replace(/^PHONENUMBER#/, ''));
      pending = result.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return claimed;
}

export async function findNumberByE164(e164: string): Promise<NumberRecord | undefined> {
  const claim = await db().send(new GetCommand({ TableName: tableName(), Key: keys.numberClaim(e164) }));
  if (!claim.Item) return undefined;
  return getNumber(Number(claim.Item.organization_id), Number(claim.Item.phone_number_id));
}

const numbersQuery = (orgId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.phoneNumberSkPrefix },
});

export async function listNumbers(orgId: number, offset: number, limit?: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(numbersQuery(orgId)),
    queryItems(numbersQuery(orgId), offset, limit),
  ]);
  return { items: items.map((item) => strip<NumberRecord>(item)), totalCount };
}

export const countNumbers = (orgId: number) => countQuery(numbersQuery(orgId));

export async function setOutboundNumber(orgId: number, agentId: number, numberId: number | null): Promise<void> {
  if (numberId === null)
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.outboundNumber(orgId, agentId) }));
  else
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.outboundNumber(orgId, agentId),
          type: 'outboundNumber',
          workflow_id: agentId,
          phone_number_id: numberId,
        },
      }),
    );
}

export async function getOutboundNumberId(orgId: number, agentId: number): Promise<number | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outboundNumber(orgId, agentId) }));
  return result.Item ? Number(result.Item.phone_number_id) : undefined;
}

/** Which agent dials from which number, for every agent with an outbound number. */
export async function listOutboundNumbers(orgId: number): Promise<{ workflow_id: number; phone_number_id: number }[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.outboundSkPrefix },
  });
  return items.map((item) => ({
    workflow_id: Number(item.workflow_id),
    phone_number_id: Number(item.phone_number_id),
  }));
}

/** Active numbers whose month ends by `now`. */
export async function dueRenewals(now: string, limit: number): Promise<NumberRecord[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :now',
      ExpressionAttributeValues: { ':pk': 'NUMBERS#RENEWAL', ':now': `${now}#~` },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => strip<NumberRecord>(item));
}

/** Numbers in the provider's review bought before `before`, oldest first (the schedule asks the provider about each). */
export async function numbersInReview(before: string, limit: number): Promise<NumberRecord[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
      ExpressionAttributeValues: { ':pk': 'NUMBERS#REVIEW', ':before': before },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => strip<NumberRecord>(item));
}

/** Charges a month and moves `renews_at` on, in one transaction; false when the balance is short. */
export async function renewNumber(number: NumberRecord, nextRenewsAt: string, at: string): Promise<boolean> {
  const index = keys.renewalIndex(number.organization_id, number.id, nextRenewsAt);
  try {
    await sendTransaction([
      balanceChange(number.organization_id, -number.monthly_cost_usd, true),
      {
        Update: {
          TableName: tableName(),
          Key: keys.phoneNumber(number.organization_id, number.id),
          UpdateExpression: 'SET renews_at = :next, gsi1pk = :gpk, gsi1sk = :gsk',
          ConditionExpression: 'renews_at = :current AND #status = :active',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':next': nextRenewsAt,
            ':current': number.renews_at,
            ':active': 'active',
            ':gpk': index.gsi1pk,
            ':gsk': index.gsi1sk,
          },
        },
      },
      chargeItem(number.organization_id, number.id, at, 'renewal', number.monthly_cost_usd),
    ]);
    return true;
  } catch (error) {
    if (failedAt(error).includes(0)) return false;
    if (failedAt(error).includes(1)) return true; // renewed meanwhile by another run
    throw error;
  }
}

type StatusChanges = {
  renews_at?: string | null;
  outbound_commitment_until?: string | null;
  order_status?: string;
  order_status_reason?: string | null;
  provider_number_id?: string | null;
  capabilities?: string[];
};

/** The conditional update that moves a number from `from` to `to` (and its renewal index with it). */
function statusUpdate(orgId: number, numberId: number, from: NumberStatus, to: NumberStatus, changes: StatusChanges) {
  const fields = Object.entries(changes);
  const sets = ['#status = :to', ...fields.map((_, i) => `#f${i} = :v${i}`)];
  let update = `SET ${sets.join(', ')}`;
  const values: Record<string, unknown> = {
    ':to': to,
    ':from': from,
    ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
  };
  if (to === 'active' && changes.renews_at) {
    const index = keys.renewalIndex(orgId, numberId, changes.renews_at);
    update += ', gsi1pk = :gpk, gsi1sk = :gsk';
    Object.assign(values, { ':gpk': index.gsi1pk, ':gsk': index.gsi1sk });
  } else if (to !== 'active') update += ' REMOVE gsi1pk, gsi1sk';
  return {
    TableName: tableName(),
    Key: keys.phoneNumber(orgId, numberId),
    UpdateExpression: update,
    ConditionExpression: '#status = :from',
    ExpressionAttributeNames: {
      '#status': 'status',
      ...Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
    },
    ExpressionAttributeValues: values,
  };
}

/** Moves a number between states (conditionally); false when it was not in `from`. */
export async function changeNumberStatus(
  orgId: number,
  numberId: number,
  from: NumberStatus,
  to: NumberStatus,
  changes: StatusChanges,
): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(statusUpdate(orgId, numberId, from, to, changes)));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Rejects a pending number and refunds its first month in one transaction: the refund happens
 * only with the status change, so two concurrent rejections refund once. False when the number
 * was no longer pending.
 */
export async function rejectPendingNumber(number: NumberRecord, reason: string, at: string): Promise<boolean> {
  const orgId = number.organization_id;
  try {
    await sendTransaction([
      {
        Update: statusUpdate(orgId, number.id, 'pending', 'rejected', {
          renews_at: null,
          order_status: 'rejected',
          order_status_reason: reason,
        }),
      },
      balanceChange(orgId, number.monthly_cost_usd, false),
      chargeItem(orgId, number.id, at, 'refund', -number.monthly_cost_usd),
    ]);
    return true;
  } catch (error) {
    if (failedAt(error).includes(0)) return false;
    throw error;
  }
}

/** Routes the number's calls to an agent: only those two fields change, on a number that exists. */
export async function assignNumber(
  orgId: number,
  numberId: number,
  agentId: number,
  at: string,
): Promise<NumberRecord | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.phoneNumber(orgId, numberId),
        UpdateExpression: 'SET workflow_id = :agent, assigned_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':agent': agentId, ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<NumberRecord>(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
