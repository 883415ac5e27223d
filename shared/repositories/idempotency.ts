import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { keys } from './keys.ts';
import { tableName } from './table.ts';

/** Powertools' DynamoDB store that can also name the record it keeps for a payload. */
export class IdempotencyStore extends DynamoDBPersistenceLayer {
  /** The record's sort key for this payload (valid once Powertools has configured the store). */
  recordKeyOf(payload: Parameters<DynamoDBPersistenceLayer['getRecord']>[0]): string {
    return this.getHashedIdempotencyKey(payload);
  }
}

/**
 * Powertools idempotency records live in the application table under one partition per scope
 * (`IDEMPOTENCY#<scope>`, sort key = the scope and a hash of the idempotency key), expired by the
 * table's TTL.
 */
export function idempotencyStore(scope: string): IdempotencyStore {
  return new IdempotencyStore({
    tableName: tableName(),
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: keys.idempotencyPartition(scope),
    expiryAttr: 'expiresAt',
  });
}
