import { definitionStatus } from '../domain/definitions.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import { nextId } from '../repositories/counters.ts';
import * as repository from '../repositories/definitions.ts';
import type { Agent } from '../schemas/agents.ts';
import type { Definition, SaveDraftRequest } from '../schemas/definitions.ts';
import { assertFlowUrls, getAgent } from './agents.ts';
import { assertTestsPassed } from './publish-gate.ts';

const view = <T extends Omit<repository.DefinitionRecord, 'workflow_definition'>>(version: T, agent: Agent) => ({
  ...version,
  status: definitionStatus(version, agent.current_definition_id),
});

/** The agent's versions, newest first (without their definitions). */
export async function listDefinitions(orgId: number, agentRef: string, page: PageRequest) {
  const agent = await getAgent(orgId, agentRef);
  const { items, totalCount } = await repository.listDefinitions(orgId, agent.id, pageOffset(page), page.limit);
  return { items: items.map((version) => view(version, agent)), ...pageInfo(page, totalCount) };
}

async function versionOf(orgId: number, agent: Agent, definitionId: number): Promise<repository.DefinitionRecord> {
  const version = await repository.getDefinition(orgId, agent.id, definitionId);
  if (!version) throw new NotFoundError('Definition not found');
  return version;
}

export async function getDefinition(orgId: number, agentRef: string, definitionId: number): Promise<Definition> {
  const agent = await getAgent(orgId, agentRef);
  return view(await versionOf(orgId, agent, definitionId), agent);
}

/** Saves a draft: a new version nothing runs until it is published or a run names it. */
export async function saveDraft(orgId: number, agentRef: string, request: SaveDraftRequest): Promise<Definition> {
  const agent = await getAgent(orgId, agentRef);
  await assertFlowUrls(request.workflow_definition);
  const version: repository.DefinitionRecord = {
    id: await nextId('definition'),
    workflow_id: agent.id,
    note: request.note ?? null,
    created_at: new Date().toISOString(),
    published_at: null,
    workflow_definition: request.workflow_definition,
  };
  await repository.insertDefinition(orgId, version);
  return view(version, agent);
}

/**
 * Makes a version current: what calls, campaigns' next calls and conversations start with from
 * now on. Runs already started keep theirs. Publishing an older version rolls back to it.
 */
export async function publishDefinition(orgId: number, agentRef: string, definitionId: number): Promise<Definition> {
  const agent = await getAgent(orgId, agentRef);
  const version = await versionOf(orgId, agent, definitionId);
  if (agent.status !== 'active') throw new ConflictError('The agent is archived; unarchive it to publish');
  if (agent.current_definition_id === version.id) return view(version, agent);
  await assertTestsPassed(orgId, agent, version.id);
  const now = new Date().toISOString();
  if (!(await repository.publishDefinition(orgId, version, agent.updated_at, now)))
    throw new ConflictError('The agent was changed by another request; fetch it and retry');
  const published = { ...version, published_at: version.published_at ?? now };
  return view(published, { ...agent, current_definition_id: version.id });
}

/**
 * The version a new run executes: the one it names (a draft being tried, or any other version of
 * the agent; 404 when the agent has none of that id), else the agent's current one.
 */
export async function runDefinitionId(orgId: number, agent: Agent, definitionId: number | undefined): Promise<number> {
  if (definitionId === undefined || definitionId === agent.current_definition_id) return agent.current_definition_id;
  return (await versionOf(orgId, agent, definitionId)).id;
}
