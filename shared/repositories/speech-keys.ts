import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { db, queryItems, tableName } from './table.ts';
import type { SpeechProvider } from '../domain/speech-providers.ts';

export interface SpeechKeyRecord {
  provider: SpeechProvider;
  /** The provider API's base URL (OpenAI-compatible speech only); null for the provider's own. */
  api_url: string | null;
  /** The organization's key at the provider, encrypted (shared/crypto/secret-box.ts). */
  api_key_ciphertext: string;
  key_last4: string;
  updated_at: string;
}

export async function putSpeechKey(orgId: number, record: SpeechKeyRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.speechKey(orgId, record.provider), type: 'speechKey', ...record },
    }),
  );
}

/** The organization's speech keys, one per provider at most. */
export async function listSpeechKeys(orgId: number): Promise<SpeechKeyRecord[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.speechKeySkPrefix },
  });
  return items.map((item) => {
    const { type: _type, ...record } = stripKeys(item);
    return record as unknown as SpeechKeyRecord;
  });
}

export async function deleteSpeechKey(orgId: number, provider: SpeechProvider): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.speechKey(orgId, provider), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}
