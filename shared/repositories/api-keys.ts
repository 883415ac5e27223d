import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { db, queryItems, tableName } from './table.ts';

/** An API key as stored: only the SHA-256 of its secret, never the key itself. */
export interface ApiKeyRecord {
  keyId: string;
  organizationId: number;
  secretHash: string;
  createdAt: string;
  revokedAt?: string;
  /** What the key is for (keys created by the operator CLI before names have none). */
  name?: string;
}

const fromItem = (item: Record<string, unknown>): ApiKeyRecord => {
  const { type: _type, ...record } = stripKeys(item);
  return record as unknown as ApiKeyRecord;
};

export async function putApiKey(record: ApiKeyRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.apiKey(record.keyId),
        ...keys.apiKeyByOrgIndex(record.organizationId, record.createdAt, record.keyId),
        type: 'apiKey',
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyId) }));
  return result.Item ? fromItem(result.Item) : undefined;
}

/**
 * Marks a key revoked; false when no such key exists, or, with `organizationId`, none of that
 * organization (another organization's key is the same as none). Revoking twice keeps the first time.
 */
export async function revokeApiKey(keyId: string, revokedAt: string, organizationId?: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKey(keyId),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression:
          organizationId === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND organizationId = :org',
        ExpressionAttributeValues: {
          ':now': revokedAt,
          ...(organizationId === undefined ? {} : { ':org': organizationId }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function listApiKeys(organizationId: number): Promise<ApiKeyRecord[]> {
  const index = keys.apiKeyByOrgIndex(organizationId, '', '');
  const items = await queryItems({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': index.gsi1pk },
  });
  return items.map(fromItem);
}
