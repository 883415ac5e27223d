import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { keys } from './keys.ts';
import { tableName } from './table.ts';

/**
 * Powertools idempotency records live in the application table under one partition per scope
 * (`IDEMPOTENCY#<scope>`, sort key = hash of the idempotency key), expired by the table's TTL.
 */
export function idempotencyStore(scope: string): DynamoDBPersistenceLayer {
  return new DynamoDBPersistenceLayer({
    tableName: tableName(),
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: keys.idempotencyPartition(scope),
    expiryAttr: 'expiresAt',
  });
}
