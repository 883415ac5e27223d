import * as z from 'zod';
import { ErrorResponse } from '../../schemas/common.ts';
import {
  Agent,
  AgentIdParam,
  AgentSummary,
  CreateAgentRequest,
  ListAgentsQuery,
  UpdateAgentRequest,
} from '../../schemas/agents.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { MAX_LIST_BODY_BYTES } from '../../http/json-limits.ts';
import { defineRoute, type ResponseHeader } from '../route.ts';

const COUNT_HEADER = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

const PAGE_HEADERS: Record<string, ResponseHeader> = {
  'X-Total-Count': { description: 'Agents matching the filter', schema: COUNT_HEADER },
  'X-Total-Pages': { description: 'Pages of `limit` agents', schema: COUNT_HEADER },
  'X-Truncated': {
    description:
      '`true` when agents were left out to keep the body under 5 MB (Lambda answers at most 6 MB); `X-Total-Count` then gives the total.',
    schema: { type: 'string', maxLength: 4, enum: ['true'] },
  },
  Link: {
    description:
      'With `X-Truncated` on an unpaged list: `rel="next"`, the next page of as many agents as this answer holds.',
    schema: { type: 'string', maxLength: 2048, pattern: '^<https?://[^>]+>; rel="next"$' },
  },
};

export const agentRoutes = {
  listAgents: defineRoute({
    operationId: 'listAgents',
    method: 'GET',
    path: '/agents',
    group: 'agents',
    summary: 'List agents',
    description:
      'Every agent of the organization, oldest first, filtered by `status`. Pass `page`/`limit` to page through them. A body never exceeds 5 MB: agents past that are left out, the answer carries `X-Truncated: true` and `X-Total-Count`, and unpaged, a `Link` to the next page (use a smaller `limit` on a truncated page).',
    tags: ['Agents'],
    request: { query: ListAgentsQuery },
    responses: {
      200: { description: 'Agents', schema: z.array(Agent).max(MAX_LIST_BODY_BYTES), headers: PAGE_HEADERS },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  createAgent: defineRoute({
    operationId: 'createAgent',
    method: 'POST',
    path: '/agents',
    group: 'agents',
    summary: 'Create an agent',
    description:
      'Creates an agent with its first definition version (`current_definition_id`); `public_id` (`agent_…`) and the integer `id` both address it afterwards. Answers 201 with the Agent.',
    tags: ['Agents'],
    request: { body: CreateAgentRequest },
    responses: { 201: { description: 'Created', schema: Agent }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  agentSummary: defineRoute({
    operationId: 'getAgentSummary',
    method: 'GET',
    path: '/agents/summary',
    group: 'agents',
    summary: 'Counts of agents and runs',
    description:
      "`{total_count, active_count, archived_count, total_runs, last_created_at}` over the organization's agents.",
    tags: ['Agents'],
    request: {},
    responses: { 200: { description: 'Summary', schema: AgentSummary }, ...UNAUTHORIZED },
  }),
  getAgent: defineRoute({
    operationId: 'getAgent',
    method: 'GET',
    path: '/agents/{agent_id}',
    group: 'agents',
    summary: 'Get an agent',
    description:
      'One agent by its public id (`agent_…`) or legacy integer id; 404 when it does not exist or belongs to another organization.',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  updateAgent: defineRoute({
    operationId: 'updateAgent',
    method: 'PATCH',
    path: '/agents/{agent_id}',
    group: 'agents',
    summary: 'Update an agent',
    description:
      'Only the fields sent change. A new `workflow_definition` is saved as a new definition version and published in the same step (it becomes `current_definition_id`); to save a draft and try it first, use `POST /agents/{agent_id}/definitions` and `…/publish`. An agent that requires passing tests (`workflow_configurations.publish_requires_passing_tests`, as the request leaves it) refuses a changed `workflow_definition` here (409): no test can have run that version.',
    tags: ['Agents'],
    request: { params: AgentIdParam, body: UpdateAgentRequest },
    responses: {
      200: { description: 'Agent', schema: Agent },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: {
        description: 'A new definition while the agent requires passing tests, or the agent changed meanwhile',
        schema: ErrorResponse,
      },
      ...VALIDATION,
    },
  }),
  archiveAgent: defineRoute({
    operationId: 'archiveAgent',
    method: 'POST',
    path: '/agents/{agent_id}/archive',
    group: 'agents',
    summary: 'Archive an agent',
    description: 'Idempotent: archiving an archived agent returns it unchanged.',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  unarchiveAgent: defineRoute({
    operationId: 'unarchiveAgent',
    method: 'POST',
    path: '/agents/{agent_id}/unarchive',
    group: 'agents',
    summary: 'Unarchive an agent',
    description: 'Idempotent: unarchiving an active agent returns it unchanged.',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
