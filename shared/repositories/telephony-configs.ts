import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

export interface TelephonyConfigRecord {
  provider: 'twilio' | 'telnyx';
  account_id: string;
  /** The organization's provider credentials (JSON), encrypted (shared/crypto/secret-box.ts). */
  credentials_ciphertext: string;
  caller_id: string;
  calls_per_second: number;
  updated_at: string;
}

export async function putTelephonyConfig(orgId: number, record: TelephonyConfigRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.telephonyConfig(orgId), type: 'telephonyConfig', ...record },
    }),
  );
}

export async function getTelephonyConfig(orgId: number): Promise<TelephonyConfigRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.telephonyConfig(orgId) }));
  if (!result.Item) return undefined;
  const { pk: _pk, sk: _sk, type: _type, ...record } = result.Item;
  return record as TelephonyConfigRecord;
}

export async function deleteTelephonyConfig(orgId: number): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.telephonyConfig(orgId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}
