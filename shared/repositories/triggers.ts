import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

export interface TriggerRecord {
  id: string;
  workflow_id: number;
  name: string;
  created_at: string;
}

const fromItem = (item: Record<string, unknown>): TriggerRecord => {
  const { type: _type, ...trigger } = stripKeys(item);
  return trigger as unknown as TriggerRecord;
};

export async function putTrigger(orgId: number, trigger: TriggerRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.trigger(orgId, trigger.id), type: 'trigger', ...trigger },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getTrigger(orgId: number, triggerId: string): Promise<TriggerRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.trigger(orgId, triggerId) }));
  return result.Item ? fromItem(result.Item) : undefined;
}

export async function deleteTrigger(orgId: number, triggerId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.trigger(orgId, triggerId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}

const listQuery = (orgId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.triggerSkPrefix },
});

export async function listTriggers(orgId: number, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(listQuery(orgId)),
    queryItems(listQuery(orgId), offset, limit),
  ]);
  return { items: items.map(fromItem), totalCount };
}
