import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

export interface ModelKeyRecord {
  api_url: string;
  model: string;
  /** The organization's language-model API key, encrypted (shared/crypto/secret-box.ts). */
  api_key_ciphertext: string;
  key_last4: string;
  updated_at: string;
}

export async function putModelKey(orgId: number, record: ModelKeyRecord): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.modelKey(orgId), type: 'modelKey', ...record } }),
  );
}

export async function getModelKey(orgId: number): Promise<ModelKeyRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.modelKey(orgId) }));
  return result.Item as ModelKeyRecord | undefined;
}

export async function deleteModelKey(orgId: number): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.modelKey(orgId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}
