import { AgentIdParam } from '../../schemas/agents.ts';
import {
  CreateMemoryRequest,
  Memory,
  MemoryIdParams,
  MemoryPage,
  UpdateMemoryRequest,
} from '../../schemas/memories.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const memoryRoutes = {
  listMemories: defineRoute({
    operationId: 'listMemories',
    method: 'GET',
    path: '/agents/{agent_id}/memories',
    group: 'memories',
    summary: "List an agent's memories (notes and tasks)",
    description: "The agent's notes and tasks, paginated.",
    tags: ['Memories'],
    request: { params: AgentIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: MemoryPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  createMemory: defineRoute({
    operationId: 'createMemory',
    method: 'POST',
    path: '/agents/{agent_id}/memories',
    group: 'memories',
    summary: 'Add a note, or a task when `due_at` is given',
    description:
      'A note (`content`, `topic`) or, with `due_at` (ISO 8601 with an offset), a task. Answers 201 with the memory (`mem_…`).',
    tags: ['Memories'],
    request: { params: AgentIdParam, body: CreateMemoryRequest },
    responses: { 201: { description: 'Created', schema: Memory }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getMemory: defineRoute({
    operationId: 'getMemory',
    method: 'GET',
    path: '/agents/{agent_id}/memories/{memory_id}',
    group: 'memories',
    summary: 'Get a memory',
    description: 'One memory of the agent.',
    tags: ['Memories'],
    request: { params: MemoryIdParams },
    responses: { 200: { description: 'Memory', schema: Memory }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  updateMemory: defineRoute({
    operationId: 'updateMemory',
    method: 'PATCH',
    path: '/agents/{agent_id}/memories/{memory_id}',
    group: 'memories',
    summary: 'Fix a note or tick a task off, without contacting the assistant',
    description:
      'Only the fields sent change. `due_at` is ISO 8601 with an offset, or null to clear it; `done: true` ticks a task off.',
    tags: ['Memories'],
    request: { params: MemoryIdParams, body: UpdateMemoryRequest },
    responses: { 200: { description: 'Memory', schema: Memory }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteMemory: defineRoute({
    operationId: 'deleteMemory',
    method: 'DELETE',
    path: '/agents/{agent_id}/memories/{memory_id}',
    group: 'memories',
    summary: 'Delete a memory',
    description: 'Deletes the memory.',
    tags: ['Memories'],
    request: { params: MemoryIdParams },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
