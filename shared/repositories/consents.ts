import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingConsent } from '../domain/oauth-consent.ts';
import { keys, stripKeys } from './keys.ts';
import { db, tableName } from './table.ts';

/** A started OAuth consent under its organization; the table's TTL removes it once expired. */
export async function putConsent(orgId: number, state: string, consent: PendingConsent): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.consent(orgId, state),
        type: 'consent',
        ...consent,
        expiresAt: Math.ceil(Date.parse(consent.expires_at) / 1000),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * Takes the consent: deleted as it is read, so a state completes at most one connection (two
 * answers racing: one gets it, the other undefined). Another organization's state is not found.
 */
export async function takeConsent(orgId: number, state: string): Promise<PendingConsent | undefined> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.consent(orgId, state), ReturnValues: 'ALL_OLD' }),
  );
  if (!result.Attributes) return undefined;
  const { type: _type, ...consent } = stripKeys(result.Attributes);
  return consent as unknown as PendingConsent;
}
