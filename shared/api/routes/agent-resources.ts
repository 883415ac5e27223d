import { AgentIdParam } from '../../schemas/agents.ts';
import {
  AddKnowledgeDocumentRequest,
  CreateToolRequest,
  KnowledgeDocument,
  KnowledgeDocumentPage,
  KnowledgeDocumentParams,
  KnowledgeSearchQuery,
  KnowledgeSearchResult,
  Tool,
  ToolList,
  ToolParams,
} from '../../schemas/agent-resources.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const FULL = { 409: { description: 'Limit reached or name taken', schema: ErrorResponse } };

export const knowledgeRoutes = {
  addDocument: defineRoute({
    operationId: 'addKnowledgeDocument',
    method: 'POST',
    path: '/agents/{agent_id}/knowledge-base/documents',
    group: 'agentResources',
    summary: "Add a document to the agent's knowledge base",
    description:
      'The text is kept in S3 and cut into passages of about 800 characters at paragraph or sentence ends; at most 3,000 passages per agent.',
    tags: ['Knowledge base'],
    request: { params: AgentIdParam, body: AddKnowledgeDocumentRequest },
    responses: {
      201: { description: 'Added', schema: KnowledgeDocument },
      ...FULL,
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  listDocuments: defineRoute({
    operationId: 'listKnowledgeDocuments',
    method: 'GET',
    path: '/agents/{agent_id}/knowledge-base/documents',
    group: 'agentResources',
    summary: "List the agent's knowledge documents",
    description: "The agent's knowledge documents (title, size, passage count), paginated.",
    tags: ['Knowledge base'],
    request: { params: AgentIdParam, query: PaginationQuery },
    responses: {
      200: { description: 'One page', schema: KnowledgeDocumentPage },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  deleteDocument: defineRoute({
    operationId: 'deleteKnowledgeDocument',
    method: 'DELETE',
    path: '/agents/{agent_id}/knowledge-base/documents/{document_id}',
    group: 'agentResources',
    summary: 'Delete a knowledge document and its passages',
    description: "Deletes the document's text and all its passages; searches stop returning them at once.",
    tags: ['Knowledge base'],
    request: { params: KnowledgeDocumentParams },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  search: defineRoute({
    operationId: 'searchKnowledgeBase',
    method: 'GET',
    path: '/agents/{agent_id}/knowledge-base/search',
    group: 'agentResources',
    summary: 'Retrieve the passages that best answer a question',
    description:
      'BM25 (k1 1.2, b 0.75) over lower-cased word tokens of every passage of the agent; what the agent retrieves during a call.',
    tags: ['Knowledge base'],
    request: { params: AgentIdParam, query: KnowledgeSearchQuery },
    responses: {
      200: { description: 'Passages, best first', schema: KnowledgeSearchResult },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};

export const toolRoutes = {
  createTool: defineRoute({
    operationId: 'createTool',
    method: 'POST',
    path: '/agents/{agent_id}/tools',
    group: 'agentResources',
    summary: 'Attach a typed HTTP tool to an agent',
    description: 'At most 32 tools per agent, names unique per agent (409).',
    tags: ['Tools'],
    request: { params: AgentIdParam, body: CreateToolRequest },
    responses: { 201: { description: 'Created', schema: Tool }, ...FULL, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listTools: defineRoute({
    operationId: 'listTools',
    method: 'GET',
    path: '/agents/{agent_id}/tools',
    group: 'agentResources',
    summary: "List an agent's tools",
    description: "The agent's HTTP tools (at most 32), paginated.",
    tags: ['Tools'],
    request: { params: AgentIdParam, query: PaginationQuery },
    responses: {
      200: { description: 'One page of tools', schema: ToolList },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  getTool: defineRoute({
    operationId: 'getTool',
    method: 'GET',
    path: '/agents/{agent_id}/tools/{tool_id}',
    group: 'agentResources',
    summary: 'Get a tool',
    description: 'One tool: name, description, method, URL, headers and its JSON Schema `parameters`.',
    tags: ['Tools'],
    request: { params: ToolParams },
    responses: { 200: { description: 'Tool', schema: Tool }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteTool: defineRoute({
    operationId: 'deleteTool',
    method: 'DELETE',
    path: '/agents/{agent_id}/tools/{tool_id}',
    group: 'agentResources',
    summary: 'Detach and delete a tool',
    description: 'Deletes the tool; the agent no longer offers it to the model.',
    tags: ['Tools'],
    request: { params: ToolParams },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
