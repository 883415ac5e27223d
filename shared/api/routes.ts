import { z } from 'zod';
import { Agent, AgentIdParam, AgentSummary, CreateAgentRequest, ListAgentsQuery, UpdateAgentRequest } from '../schemas/agents.ts';
import { AddDoNotCallRequest, DoNotCallEntry, DoNotCallNumberParam, DoNotCallPage } from '../schemas/do-not-call.ts';
import { PaginationQuery } from '../schemas/pagination.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from './common-responses.ts';
import { defineRoute, type Route } from './route.ts';

const PAGE_HEADERS = {
  'X-Total-Count': { description: 'Agents matching the filter', schema: { type: 'integer' as const } },
  'X-Total-Pages': { description: 'Pages of `limit` agents', schema: { type: 'integer' as const } },
};

export const agentRoutes = {
  listAgents: defineRoute({
    operationId: 'listAgents',
    method: 'GET',
    path: '/agents',
    group: 'agents',
    summary: 'List agents',
    description: 'Every agent of the organization, oldest first, filtered by `status`. Pass `page`/`limit` to page through them.',
    tags: ['Agents'],
    request: { query: ListAgentsQuery },
    responses: { 200: { description: 'Agents', schema: z.array(Agent), headers: PAGE_HEADERS }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  createAgent: defineRoute({
    operationId: 'createAgent',
    method: 'POST',
    path: '/agents',
    group: 'agents',
    summary: 'Create an agent',
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
    description: 'Only the fields sent change. A new `workflow_definition` becomes a new definition version.',
    tags: ['Agents'],
    request: { params: AgentIdParam, body: UpdateAgentRequest },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
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

export const doNotCallRoutes = {
  addDoNotCall: defineRoute({
    operationId: 'addDoNotCallNumber',
    method: 'POST',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'Add a number to the do-not-call list',
    description:
      'The number is normalised to E.164 first. Calls to listed numbers are refused with 403 and campaigns skip them. ' +
      'Adding a listed number again is not an error: it answers 200 with the existing entry.',
    tags: ['Do not call'],
    request: { body: AddDoNotCallRequest },
    responses: {
      201: { description: 'Added', schema: DoNotCallEntry },
      200: { description: 'Already on the list', schema: DoNotCallEntry },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  listDoNotCall: defineRoute({
    operationId: 'listDoNotCallNumbers',
    method: 'GET',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'List the do-not-call numbers',
    description: 'In E.164 order.',
    tags: ['Do not call'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: DoNotCallPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  removeDoNotCall: defineRoute({
    operationId: 'removeDoNotCallNumber',
    method: 'DELETE',
    path: '/do-not-call/{phone_number}',
    group: 'doNotCall',
    summary: 'Remove a number from the do-not-call list',
    description: 'The number in the path may be written in any form `POST` accepts (URL-encode the `+` as `%2B` if your client turns `+` into a space).',
    tags: ['Do not call'],
    request: { params: DoNotCallNumberParam },
    responses: { 204: { description: 'Removed' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const docsRoutes = {
  openapiDocument: defineRoute({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/public-openapi.json',
    group: 'docs',
    public: true,
    summary: 'OpenAPI 3.1 description of this API',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'OpenAPI document', contentType: 'application/json' } },
  }),
  docsPage: defineRoute({
    operationId: 'getDocsPage',
    method: 'GET',
    path: '/public-docs',
    group: 'docs',
    public: true,
    summary: 'Interactive API reference',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  }),
  docsAsset: defineRoute({
    operationId: 'getDocsAsset',
    method: 'GET',
    path: '/public-docs/{asset}',
    group: 'docs',
    public: true,
    summary: 'Static asset of the reference page',
    tags: ['Documentation'],
    request: { params: z.object({ asset: z.string() }) },
    responses: { 200: { description: 'Asset' }, 404: { description: 'No such asset' } },
  }),
};

/** The route table: every endpoint of the API. */
export const ROUTES: Route[] = [...Object.values(agentRoutes), ...Object.values(doNotCallRoutes), ...Object.values(docsRoutes)] as Route[];
