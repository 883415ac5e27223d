import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

export type CounterName = 'organization' | 'agent' | 'definition' | 'run' | 'campaign' | 'phoneNumber';

/** Allocates the next integer id: an atomic ADD, so concurrent callers never get the same one. */
export async function nextId(name: CounterName): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter(name),
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value);
}
