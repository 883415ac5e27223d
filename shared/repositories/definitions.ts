import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

/** A stored definition version: immutable but for `published_at`, set when it is first published. */
export interface DefinitionRecord {
  id: number;
  workflow_id: number;
  note: string | null;
  created_at: string;
  /** null: a draft never published. */
  published_at: string | null;
  workflow_definition: Record<string, unknown>;
}

export const definitionItem = (orgId: number, version: DefinitionRecord) => ({
  ...keys.agentDefinition(orgId, version.workflow_id, version.id),
  type: 'agentDefinition',
  definition_id: version.id,
  workflow_id: version.workflow_id,
  workflow_definition: version.workflow_definition,
  note: version.note,
  created_at: version.created_at,
  published_at: version.published_at,
});

/** Versions written before drafts existed were each published as they were saved. */
const fromItem = (agentId: number, item: Record<string, unknown>): DefinitionRecord => ({
  id: Number(item.definition_id),
  workflow_id: agentId,
  note: (item.note as string | null | undefined) ?? null,
  created_at: item.created_at as string,
  published_at: item.published_at === undefined ? (item.created_at as string) : (item.published_at as string | null),
  workflow_definition: (item.workflow_definition as Record<string, unknown> | undefined) ?? {},
});

/** Saves a new version (a draft when `published_at` is null); its id is fresh, so it never replaces one. */
export async function insertDefinition(orgId: number, version: DefinitionRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: definitionItem(orgId, version),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getDefinition(
  orgId: number,
  agentId: number,
  definitionId: number,
): Promise<DefinitionRecord | undefined> {
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.agentDefinition(orgId, agentId, definitionId),
      ConsistentRead: true,
    }),
  );
  return result.Item ? fromItem(agentId, result.Item) : undefined;
}

function definitionsQuery(orgId: number, agentId: number) {
  const { pk, sk } = keys.agentDefinition(orgId, agentId, 0);
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': sk.slice(0, sk.lastIndexOf('#') + 1) },
  };
}

/** The agent's versions, newest first, without their definitions (up to 200 kB each). */
export async function listDefinitions(
  orgId: number,
  agentId: number,
  offset: number,
  limit: number,
): Promise<{ items: Omit<DefinitionRecord, 'workflow_definition'>[]; totalCount: number }> {
  const query = definitionsQuery(orgId, agentId);
  const [totalCount, items] = await Promise.all([
    countQuery(query),
    queryItems(
      {
        ...query,
        ScanIndexForward: false,
        ProjectionExpression: 'definition_id, note, created_at, published_at',
      },
      offset,
      limit,
    ),
  ]);
  return {
    totalCount,
    items: items.map((item) => {
      const { workflow_definition: _definition, ...summary } = fromItem(agentId, item);
      return summary;
    }),
  };
}

/**
 * Makes the version the agent's current one, in one transaction conditioned on the agent as it was
 * read (its `updated_at`) and still active: of two publishes that read the same agent, one wins
 * and the other changes nothing. The agent's `workflow_definition` is the current version's copy.
 * Answers false when the condition failed.
 */
export async function publishDefinition(
  orgId: number,
  version: DefinitionRecord,
  readUpdatedAt: string,
  now: string,
): Promise<boolean> {
  const table = tableName();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: keys.agent(orgId, version.workflow_id),
              UpdateExpression: 'SET current_definition_id = :id, workflow_definition = :definition, updated_at = :now',
              ConditionExpression: 'updated_at = :read AND #status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':id': version.id,
                ':definition': version.workflow_definition,
                ':now': now,
                ':read': readUpdatedAt,
                ':active': 'active',
              },
            },
          },
          version.published_at === null
            ? {
                Update: {
                  TableName: table,
                  Key: keys.agentDefinition(orgId, version.workflow_id, version.id),
                  UpdateExpression: 'SET published_at = :now',
                  ConditionExpression: 'attribute_type(published_at, :null)',
                  ExpressionAttributeValues: { ':now': now, ':null': 'NULL' },
                },
              }
            : {
                ConditionCheck: {
                  TableName: table,
                  Key: keys.agentDefinition(orgId, version.workflow_id, version.id),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || error instanceof TransactionCanceledException) return false;
    throw error;
  }
}
