import type { AgentStatus } from '../domain/agent.ts';
import { parseAgentStatusFilter } from '../domain/agent-status-filter.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { isFlowDefinition, type FlowDefinition } from '../domain/flows.ts';
import { newPublicAgentId } from '../domain/ids.ts';
import { pageOffset, totalPages } from '../domain/pagination.ts';
import { MAX_LIST_BODY_BYTES, takeWithinBytes } from '../http/json-limits.ts';
import * as repository from '../repositories/agents.ts';
import { nextId } from '../repositories/counters.ts';
import type { Agent, AgentSummary, CreateAgentRequest, UpdateAgentRequest } from '../schemas/agents.ts';
import { assertPublicUrl } from './public-urls.ts';
import { assertPatchMayPublish } from './publish-gate.ts';

/** Page size of the agent list when only `page` is given, and the largest `limit`. */
const AGENT_LIST_DEFAULT_LIMIT = 100;
export const AGENT_LIST_MAX_LIMIT = 100;

/** A flow's pre-call fetch is a URL the platform fetches: checked by the SSRF guard when it is given. */
export async function assertFlowUrls(definition: Record<string, unknown> | undefined): Promise<void> {
  if (!definition || !isFlowDefinition(definition)) return;
  for (const node of (definition as unknown as FlowDefinition).nodes)
    if (node.type === 'startCall' && node.pre_call_fetch)
      await assertPublicUrl(node.pre_call_fetch.url, 'Pre-call fetch');
}

export async function createAgent(orgId: number, request: CreateAgentRequest): Promise<Agent> {
  await assertFlowUrls(request.workflow_definition);
  const [id, definitionId] = await Promise.all([nextId('agent'), nextId('definition')]);
  const now = new Date().toISOString();
  const agent: Agent = {
    id,
    public_id: newPublicAgentId(),
    name: request.name,
    status: 'active',
    created_at: now,
    updated_at: now,
    workflow_definition: request.workflow_definition,
    current_definition_id: definitionId,
    template_context_variables: request.template_context_variables,
    call_disposition_codes: request.call_disposition_codes,
    total_runs: 0,
    workflow_configurations: request.workflow_configurations,
    voicemail_message: request.voicemail_message ?? null,
  };
  await repository.insertAgent(orgId, agent);
  return agent;
}

/** Finds an agent by either id form, within the caller's organization only. */
export async function getAgent(orgId: number, agentRef: string): Promise<Agent> {
  const agentId = /^\d+$/.test(agentRef) ? Number(agentRef) : await repository.findAgentIdByPublicId(orgId, agentRef);
  const agent = agentId === undefined ? undefined : await repository.getAgent(orgId, agentId);
  if (!agent) throw new NotFoundError('Agent not found');
  return agent;
}

export interface AgentList {
  agents: Agent[];
  totalCount?: number;
  totalPages?: number;
  /** Some agents were left out to keep the body under MAX_LIST_BODY_BYTES (they come first, in order). */
  truncated?: boolean;
}

/** Agents in order while the JSON body stays within the budget, reading no further than needed. */
async function agentsWithinBudget(
  orgId: number,
  statuses: readonly AgentStatus[],
): Promise<{ agents: Agent[]; truncated: boolean }> {
  const agents: Agent[] = [];
  let bytes = 2;
  for await (const page of repository.agentPages(orgId, statuses)) {
    const fitted = takeWithinBytes(page, MAX_LIST_BODY_BYTES, bytes);
    agents.push(...fitted.items);
    bytes = fitted.bytes;
    // Cut at a whole number of pages of AGENT_LIST_MAX_LIMIT, so the rest are pages of the same size.
    if (fitted.truncated)
      return {
        agents:
          agents.length > AGENT_LIST_MAX_LIMIT
            ? agents.slice(0, agents.length - (agents.length % AGENT_LIST_MAX_LIMIT))
            : agents,
        truncated: true,
      };
  }
  return { agents, truncated: false };
}

/**
 * Without `page`/`limit` every matching agent is returned; with them, one page and its counts.
 * Either way the body stays under MAX_LIST_BODY_BYTES (Lambda answers at most 6 MB): agents past
 * it are left out and `truncated` is set, with the total count.
 */
export async function listAgents(
  orgId: number,
  query: { status?: string; page?: number; limit?: number },
): Promise<AgentList> {
  const statuses = parseAgentStatusFilter(query.status);
  if (query.page === undefined && query.limit === undefined) {
    const { agents, truncated } = await agentsWithinBudget(orgId, statuses);
    return truncated ? { agents, truncated, totalCount: await repository.countAgents(orgId, statuses) } : { agents };
  }
  const page = { page: query.page ?? 1, limit: query.limit ?? AGENT_LIST_DEFAULT_LIMIT };
  const [totalCount, agents] = await Promise.all([
    repository.countAgents(orgId, statuses),
    repository.listAgents(orgId, statuses, pageOffset(page), page.limit),
  ]);
  const fitted = takeWithinBytes(agents, MAX_LIST_BODY_BYTES);
  return {
    agents: fitted.items,
    totalCount,
    totalPages: totalPages(totalCount, page.limit),
    ...(fitted.truncated && { truncated: true }),
  };
}

const concurrentChange = () => new ConflictError('The agent was changed by another request; fetch it and retry');

/** Changes only the fields sent (and the definition version when the definition changes). */
export async function updateAgent(orgId: number, agentRef: string, changes: UpdateAgentRequest): Promise<Agent> {
  const current = await getAgent(orgId, agentRef);
  await assertFlowUrls(changes.workflow_definition);
  const definitionChanged =
    changes.workflow_definition !== undefined &&
    JSON.stringify(changes.workflow_definition) !== JSON.stringify(current.workflow_definition);
  const fields = {
    ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    ...(definitionChanged ? { current_definition_id: await nextId('definition') } : {}),
    updated_at: new Date().toISOString(),
  };
  const definition = definitionChanged ? ({ ...current, ...fields } as Agent) : undefined;
  if (definition) assertPatchMayPublish(definition);
  const updated = await repository.updateAgentFields(orgId, current.id, fields, current.updated_at, definition);
  if (!updated) throw concurrentChange();
  return updated;
}

export async function setAgentStatus(orgId: number, agentRef: string, status: AgentStatus): Promise<Agent> {
  const current = await getAgent(orgId, agentRef);
  if (current.status === status) return current;
  const updated = await repository.updateAgentFields(
    orgId,
    current.id,
    { status, updated_at: new Date().toISOString() },
    current.updated_at,
  );
  if (!updated) throw concurrentChange();
  return updated;
}

export async function summarizeAgents(orgId: number): Promise<AgentSummary> {
  const agents = await repository.listAgents(orgId, ['active', 'archived']);
  return {
    total_count: agents.length,
    active_count: agents.filter((agent) => agent.status === 'active').length,
    archived_count: agents.filter((agent) => agent.status === 'archived').length,
    total_runs: agents.reduce((sum, agent) => sum + agent.total_runs, 0),
    last_created_at: agents.at(-1)?.created_at ?? null,
  };
}
