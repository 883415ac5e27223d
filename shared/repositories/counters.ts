import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { db, tableName } from './table.ts';

export type CounterName =
  | 'organization'
  | 'agent'
  | 'definition'
  | 'run'
  | 'campaign'
  | 'phoneNumber'
  | 'numberDocument'
  | 'numberOrder'
  | 'testRun';

/** Allocates the next integer id: an atomic ADD, so concurrent callers never get the same one. */
export const nextId = (name: CounterName): Promise<number> => nextIds(name, 1);

/** Allocates `count` consecutive ids in one request (a batch of placements); returns the first. */
export async function nextIds(name: CounterName, count: number): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter(name),
      UpdateExpression: 'ADD #value :count',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value) - count + 1;
}
