import { DeleteCommand, GetCommand, paginateScan, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dueEntryChange } from '../domain/due-tasks.ts';
import { memoryIndex, MEMORY_SLOTS } from '../domain/memories.ts';
import type { Memory } from '../schemas/memories.ts';
import { dueEntryWrite } from './due-tasks.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, refusedAt, sendTransaction, tableName, type TransactItem } from './table.ts';

const fromItem = (item: Record<string, unknown>): Memory => {
  const { type: _type, due_indexed: _indexed, ...memory } = stripKeys(item);
  return { contact: null, ...memory } as unknown as Memory;
};

/** The memory's place in the index a call reads (none for a ticked-off task). */
function indexKeys(orgId: number, memory: Memory): { gsi1pk?: string; gsi1sk?: string } {
  const index = memoryIndex(memory);
  if (!index) return {};
  return index.kind === 'task'
    ? { gsi1pk: keys.openTasks(orgId, memory.workflow_id), gsi1sk: index.order }
    : { gsi1pk: keys.notesAbout(orgId, memory.workflow_id, index.contact), gsi1sk: index.order };
}

/**
 * `due_indexed`: written since the due index existed, so its due entry follows its writes. A memory
 * without it was stored before, and only the migration (backfillDueIndex) arms its task.
 */
const memoryItem = (orgId: number, memory: Memory) => ({
  ...keys.memory(orgId, memory.workflow_id, memory.id),
  ...indexKeys(orgId, memory),
  type: 'memory',
  due_indexed: true,
  ...memory,
});

/**
 * The memory's write, with its due entry's when that changes (a new open task or a new due_at
 * arms it, a task ticked off or cleared disarms it: domain/due-tasks.ts), in one transaction.
 */
async function writeMemory(orgId: number, memory: Memory, before: Memory | null, onlyNew: boolean): Promise<void> {
  const change = dueEntryChange(before, memory);
  const put = {
    TableName: tableName(),
    Item: memoryItem(orgId, memory),
    ...(onlyNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
  };
  if (change === 'keep') {
    await db().send(new PutCommand(put));
    return;
  }
  const entry: TransactItem = dueEntryWrite(
    orgId,
    memory.workflow_id,
    memory.id,
    change === 'arm' ? { arm: memory.due_at! } : 'disarm',
  );
  await sendTransaction([{ Put: put }, entry]);
}

/** Writes the whole memory (a new one, or one changed by the API: `before`), with its index entries. */
export async function putMemory(orgId: number, memory: Memory, before: Memory | null = null): Promise<void> {
  await writeMemory(orgId, memory, before, false);
}

const readIndex = (gsi1pk: string, limit: number, newestFirst: boolean) =>
  queryItems(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi1pk },
      ScanIndexForward: !newestFirst,
      Limit: limit,
    },
    0,
    limit,
  ).then((items) => items.map(fromItem));

/** The newest notes about `contact` (null: about no one in particular), one Query. */
export const latestNotes = (orgId: number, agentId: number, contact: string | null, limit: number) =>
  readIndex(keys.notesAbout(orgId, agentId, contact), limit, true);

/**
 * What a call reads of the agent itself (domain/memories.ts): its open tasks soonest due first and
 * its general notes newest first, each bounded by its slots; two Queries of one index. The notes
 * about the caller are read per call (latestNotes).
 */
export async function agentMemories(orgId: number, agentId: number) {
  const [tasks, otherNotes] = await Promise.all([
    readIndex(keys.openTasks(orgId, agentId), MEMORY_SLOTS.tasks, false),
    latestNotes(orgId, agentId, null, MEMORY_SLOTS.otherNotes),
  ]);
  return { tasks, otherNotes };
}

/**
 * Writes a memory the assistant made from a call, once: its id is derived from the run, so a
 * repeated analysis finds it there (false) rather than writing it twice.
 */
export async function putMemoryOnce(orgId: number, memory: Memory): Promise<boolean> {
  try {
    await writeMemory(orgId, memory, null, true);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || refusedAt(error, 0)) return false;
    throw error;
  }
}

export async function getMemory(orgId: number, agentId: number, memoryId: string): Promise<Memory | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.memory(orgId, agentId, memoryId) }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

/** Deletes the memory; its due entry, if any, goes after it (one left behind is dropped when read: stale). */
export async function deleteMemory(orgId: number, agentId: number, memoryId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.memory(orgId, agentId, memoryId), ReturnValues: 'ALL_OLD' }),
  );
  if (result.Attributes?.due_at && !result.Attributes.done)
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.dueTask(orgId, agentId, memoryId) }));
  return result.Attributes !== undefined;
}

const listQuery = (orgId: number, agentId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.runPartition(orgId, agentId), ':prefix': keys.memorySkPrefix },
});

export async function listMemories(orgId: number, agentId: number, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(listQuery(orgId, agentId)),
    queryItems(listQuery(orgId, agentId), offset, limit),
  ]);
  return { items: items.map(fromItem), totalCount };
}

/**
 * Every memory stored before the due index (no `due_indexed`), page by page, at most `pageSize`
 * items read per request. A Scan: for the operator's one-off migration only, never on a request path.
 */
export async function* memoriesBeforeDueIndex(pageSize = 1000): AsyncGenerator<{ orgId: number; memory: Memory }[]> {
  const pages = paginateScan(
    { client: db(), pageSize },
    {
      TableName: tableName(),
      FilterExpression: '#type = :memory AND attribute_not_exists(due_indexed)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':memory': 'memory' },
    },
  );
  for await (const page of pages) {
    yield (page.Items ?? []).flatMap((item) => {
      const orgId = Number(/^ORG#(\d+)#/.exec(String(item.pk))?.[1]);
      return Number.isInteger(orgId) ? [{ orgId, memory: fromItem(item) }] : [];
    });
  }
}

/**
 * Brings a memory stored before the due index into it: marks it `due_indexed`, gives it the index
 * keys a call reads it by, and with `arm` puts its task's due entry, in one transaction that holds
 * only while the memory is as read (not rewritten through the API meanwhile, which indexes it
 * itself). A due entry already there (armed meanwhile) is kept as it is, not armed again.
 * `skipped` when the memory changed or went since it was read.
 */
export async function backfillDueIndex(
  orgId: number,
  memory: Memory,
  arm: boolean,
): Promise<'armed' | 'indexed' | 'skipped'> {
  const index = indexKeys(orgId, memory);
  const mark: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.memory(orgId, memory.workflow_id, memory.id),
      UpdateExpression: `SET due_indexed = :marked${index.gsi1pk ? ', gsi1pk = :pk, gsi1sk = :sk' : ''}`,
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(due_indexed) AND updated_at = :read',
      ExpressionAttributeValues: {
        ':marked': true,
        ':read': memory.updated_at,
        ...(index.gsi1pk ? { ':pk': index.gsi1pk, ':sk': index.gsi1sk } : {}),
      },
    },
  };
  if (arm) {
    const entry = dueEntryWrite(orgId, memory.workflow_id, memory.id, { arm: memory.due_at! });
    try {
      await sendTransaction([mark, { Put: { ...entry.Put!, ConditionExpression: 'attribute_not_exists(pk)' } }]);
      return 'armed';
    } catch (error) {
      if (refusedAt(error, 0)) return 'skipped';
      if (!refusedAt(error, 1)) throw error;
    }
  }
  try {
    await db().send(new UpdateCommand(mark.Update!));
    return 'indexed';
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return 'skipped';
    throw error;
  }
}
