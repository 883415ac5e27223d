import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { db, tableName } from './table.ts';

export interface OrganizationRecord {
  id: number;
  name: string;
  maxConcurrentCalls: number;
  createdAt: string;
  /** Outbound channels in use (maintained by the runs repository's transactions). */
  active_calls?: number;
  /** Prepaid balance (numbers are charged to it). */
  balance_usd?: number;
  /** `paid` once the organization is on a paid plan (operator CLI). */
  plan?: 'free' | 'paid';
  /** Set while an operator has suspended the organization: its keys are refused. */
  suspendedAt?: string;
  /**
   * Value of the organization's API Gateway API key in the usage plan: the authorizer returns it as
   * `usageIdentifierKey`, so API Gateway throttles per organization. Not a credential: clients
   * never send it (API key source AUTHORIZER).
   */
  usagePlanKey?: string;
}

/** Suspends (with the time) or resumes (undefined) an organization; false when it does not exist. */
export async function setSuspended(orgId: number, suspendedAt: string | undefined): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(orgId),
        UpdateExpression: suspendedAt ? 'SET suspendedAt = :at' : 'REMOVE suspendedAt',
        ConditionExpression: 'attribute_exists(pk)',
        ...(suspendedAt ? { ExpressionAttributeValues: { ':at': suspendedAt } } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function setUsagePlanKey(orgId: number, usagePlanKey: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: 'SET usagePlanKey = :key',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':key': usagePlanKey },
    }),
  );
}

/** Adds (or with a negative amount, removes) balance; returns the new balance. */
export async function addBalance(orgId: number, usd: number): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: 'SET balance_usd = if_not_exists(balance_usd, :zero) + :amount',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':zero': 0, ':amount': usd },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.balance_usd);
}

export async function setPlan(orgId: number, plan: 'free' | 'paid'): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: 'SET #plan = :plan',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#plan': 'plan' },
      ExpressionAttributeValues: { ':plan': plan },
    }),
  );
}

export async function putOrganization(organization: OrganizationRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.organization(organization.id), type: 'organization', ...organization },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getOrganization(orgId: number): Promise<OrganizationRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.organization(orgId) }));
  if (!result.Item) return undefined;
  const { type: _type, ...record } = stripKeys(result.Item);
  return record as unknown as OrganizationRecord;
}
