import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { db, tableName } from './table.ts';

export interface OrganizationRecord {
  id: number;
  name: string;
  maxConcurrentCalls: number;
  createdAt: string;
  /** Outbound channels in use (maintained by the runs repository's transactions). */
  active_calls?: number;
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
