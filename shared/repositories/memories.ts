import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Memory } from '../schemas/memories.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

const fromItem = (item: Record<string, unknown>): Memory => {
  const { type: _type, ...memory } = stripKeys(item);
  return memory as unknown as Memory;
};

export async function putMemory(orgId: number, memory: Memory): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.memory(orgId, memory.workflow_id, memory.id), type: 'memory', ...memory },
    }),
  );
}

export async function getMemory(orgId: number, agentId: number, memoryId: string): Promise<Memory | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.memory(orgId, agentId, memoryId) }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

export async function deleteMemory(orgId: number, agentId: number, memoryId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.memory(orgId, agentId, memoryId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}

const listQuery = (orgId: number, agentId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.runPartition(orgId, agentId), ':prefix': keys.memorySkPrefix },
});

/** The agent's first `limit` notes, without counting them all (what a call reads). */
export async function firstMemories(orgId: number, agentId: number, limit: number): Promise<Memory[]> {
  return (await queryItems(listQuery(orgId, agentId), 0, limit)).map(fromItem);
}

export async function listMemories(orgId: number, agentId: number, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(listQuery(orgId, agentId)),
    queryItems(listQuery(orgId, agentId), offset, limit),
  ]);
  return { items: items.map(fromItem), totalCount };
}
