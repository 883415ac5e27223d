import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { db, queryItems, tableName } from './table.ts';

export interface ConnectionRecord {
  id: string;
  provider: string;
  account_email: string;
  created_at: string;
  /** The OAuth refresh token, encrypted (shared/crypto/secret-box.ts). */
  refresh_token_ciphertext: string;
}

const fromItem = (item: Record<string, unknown>): ConnectionRecord => {
  const { type: _type, ...connection } = stripKeys(item);
  return connection as unknown as ConnectionRecord;
};

export async function putConnection(orgId: number, connection: ConnectionRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.connection(orgId, connection.id), type: 'connection', ...connection },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getConnection(orgId: number, connectionId: string): Promise<ConnectionRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.connection(orgId, connectionId) }));
  return result.Item ? fromItem(result.Item) : undefined;
}

export async function listConnections(orgId: number): Promise<ConnectionRecord[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.connectionSkPrefix },
  });
  return items.map(fromItem);
}

export async function deleteConnection(orgId: number, connectionId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.connection(orgId, connectionId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}
