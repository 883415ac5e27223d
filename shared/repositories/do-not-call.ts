import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

export interface DoNotCallEntry {
  phone_number: string;
  created_at: string;
}

const fromItem = (item: Record<string, unknown>): DoNotCallEntry => {
  const { type: _type, ...entry } = stripKeys(item);
  return entry as unknown as DoNotCallEntry;
};

/** Adds the number; false when it is on the list already. */
export async function addDoNotCall(orgId: number, entry: DoNotCallEntry): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.doNotCall(orgId, entry.phone_number), type: 'doNotCall', ...entry },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function getDoNotCall(orgId: number, e164: string): Promise<DoNotCallEntry | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.doNotCall(orgId, e164) }));
  return result.Item ? fromItem(result.Item) : undefined;
}

/** Removes the number; false when it was not on the list. */
export async function removeDoNotCall(orgId: number, e164: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.doNotCall(orgId, e164), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}

// Read consistently: the list is read again right after a number is added or removed (the
// console does), and an eventually consistent read could still miss the change on DynamoDB.
const listQuery = (orgId: number) => ({
  ConsistentRead: true,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.doNotCallSkPrefix },
});

export async function listDoNotCall(
  orgId: number,
  offset: number,
  limit: number,
): Promise<{ items: DoNotCallEntry[]; totalCount: number }> {
  const [totalCount, items] = await Promise.all([
    countQuery(listQuery(orgId)),
    queryItems(listQuery(orgId), offset, limit),
  ]);
  return { items: items.map(fromItem), totalCount };
}
