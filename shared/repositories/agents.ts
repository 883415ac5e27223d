import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AgentStatus } from '../domain/agent.ts';
import { AGENT_STATUSES } from '../domain/agent.ts';
import type { Agent } from '../schemas/agents.ts';
import { definitionItem } from './definitions.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, queryPages, refusedAt, tableName } from './table.ts';

/** Agents are stored in their API shape, under their organization's partition. */
const fromItem = (item: Record<string, unknown>): Agent => {
  const { type: _type, organization_id: _org, ...agent } = stripKeys(item);
  // Agents stored before voicemail messages existed have none.
  return { voicemail_message: null, ...agent } as unknown as Agent;
};

const agentItem = (orgId: number, agent: Agent) => ({
  ...keys.agent(orgId, agent.id),
  type: 'agent',
  organization_id: orgId,
  ...agent,
});

/** The agent's definition as a version published with the agent's change (created or updated). */
const publishedVersion = (orgId: number, agent: Agent) =>
  definitionItem(orgId, {
    id: agent.current_definition_id,
    workflow_id: agent.id,
    note: null,
    created_at: agent.updated_at,
    published_at: agent.updated_at,
    workflow_definition: agent.workflow_definition,
  });

/** Writes the agent, its public-id alias and its first definition together, or none of them. */
export async function insertAgent(orgId: number, agent: Agent): Promise<void> {
  const table = tableName();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table, Item: agentItem(orgId, agent), ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Put: {
            TableName: table,
            Item: { ...keys.agentPublicId(orgId, agent.public_id), type: 'agentPublicId', agent_id: agent.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: table, Item: publishedVersion(orgId, agent) } },
      ],
    }),
  );
}

/**
 * Sets only the given fields of the agent (with `updated_at`, its version), if nobody changed it
 * since it was read; fields it does not change, such as the run count that call placement adds
 * to, are left alone. With `definition` the new definition version is recorded in the same
 * transaction. Returns the agent as stored, or undefined on a concurrent change.
 */
export async function updateAgentFields(
  orgId: number,
  agentId: number,
  changes: Partial<Omit<Agent, 'id' | 'public_id' | 'created_at' | 'total_runs'>> & { updated_at: string },
  readUpdatedAt: string,
  definition?: Agent,
): Promise<Agent | undefined> {
  const table = tableName();
  const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
  const update = {
    TableName: table,
    Key: keys.agent(orgId, agentId),
    UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
    ConditionExpression: 'updated_at = :read',
    ExpressionAttributeNames: Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
    ExpressionAttributeValues: {
      ':read': readUpdatedAt,
      ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
    },
  };
  try {
    if (!definition) {
      const result = await db().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
      return fromItem(result.Attributes!);
    }
    await db().send(
      new TransactWriteCommand({
        TransactItems: [{ Update: update }, { Put: { TableName: table, Item: publishedVersion(orgId, definition) } }],
      }),
    );
    return getAgent(orgId, agentId);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    if (refusedAt(error, 0)) return undefined;
    throw error;
  }
}

export async function getAgent(orgId: number, agentId: number): Promise<Agent | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.agent(orgId, agentId), ConsistentRead: true }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

export async function findAgentIdByPublicId(orgId: number, publicId: string): Promise<number | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.agentPublicId(orgId, publicId) }));
  return result.Item ? Number(result.Item.agent_id) : undefined;
}

function agentsQuery(orgId: number, statuses: readonly AgentStatus[]) {
  const filtered = statuses.length < AGENT_STATUSES.length;
  const statusValues = Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status]));
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ...(filtered && {
      FilterExpression: `#status IN (${Object.keys(statusValues).join(', ')})`,
      ExpressionAttributeNames: { '#status': 'status' },
    }),
    ExpressionAttributeValues: {
      ':pk': keys.orgPartition(orgId),
      ':prefix': keys.agentSkPrefix,
      ...(filtered && statusValues),
    },
  };
}

export async function countAgents(orgId: number, statuses: readonly AgentStatus[]): Promise<number> {
  return countQuery(agentsQuery(orgId, statuses));
}

/** Agents in id order (= creation order); all of them when `limit` is undefined. */
export async function listAgents(
  orgId: number,
  statuses: readonly AgentStatus[],
  offset = 0,
  limit?: number,
): Promise<Agent[]> {
  const items = await queryItems(agentsQuery(orgId, statuses), offset, limit);
  return items.map(fromItem);
}

/** Agents in id order, a DynamoDB page at a time, for a reader that stops at a response budget. */
export async function* agentPages(orgId: number, statuses: readonly AgentStatus[]): AsyncGenerator<Agent[]> {
  for await (const items of queryPages(agentsQuery(orgId, statuses))) yield items.map(fromItem);
}
