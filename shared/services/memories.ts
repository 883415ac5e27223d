import { backfillStep } from '../domain/due-tasks.ts';
import { NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import * as repository from '../repositories/memories.ts';
import type { Memory } from '../schemas/memories.ts';
import { emitMemoryCreated } from '../events/webhook-events.ts';
import { getAgent } from './agents.ts';

const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

export async function createMemory(
  orgId: number,
  agentRef: string,
  request: { content: string; topic: string; due_at?: string | null; contact?: string | null },
): Promise<Memory> {
  const agent = await getAgent(orgId, agentRef);
  return saveMemory(orgId, agent.id, request, { by: 'api', runId: null });
}

/**
 * A new memory of agent `agentId`: an API client's (createMemory) or the agent's during call
 * `runId` (save_note); `memory.created` goes to the organization's webhooks.
 */
export async function saveMemory(
  orgId: number,
  agentId: number,
  request: { content: string; topic: string; due_at?: string | null; contact?: string | null },
  origin: { by: 'api' | 'agent'; runId: number | null },
): Promise<Memory> {
  const now = new Date().toISOString();
  const memory: Memory = {
    id: `mem_${randomAlphanumeric(16)}`,
    workflow_id: agentId,
    content: request.content,
    topic: request.topic,
    due_at: iso(request.due_at),
    done: false,
    contact: request.contact ?? null,
    created_at: now,
    updated_at: now,
  };
  await repository.putMemory(orgId, memory);
  await emitMemoryCreated(orgId, memory, origin.by, origin.runId);
  return memory;
}

async function findMemory(orgId: number, agentRef: string, memoryId: string): Promise<Memory> {
  const agent = await getAgent(orgId, agentRef);
  const memory = await repository.getMemory(orgId, agent.id, memoryId);
  if (!memory) throw new NotFoundError('Memory not found');
  return memory;
}

export const getMemory = findMemory;

/** Fixes a note or ticks a task off, without the assistant: only the fields sent change. */
export async function updateMemory(
  orgId: number,
  agentRef: string,
  memoryId: string,
  changes: { content?: string; topic?: string; due_at?: string | null; done?: boolean },
): Promise<Memory> {
  const memory = await findMemory(orgId, agentRef, memoryId);
  const updated: Memory = {
    ...memory,
    ...(changes.content !== undefined ? { content: changes.content } : {}),
    ...(changes.topic !== undefined ? { topic: changes.topic } : {}),
    ...(changes.due_at !== undefined ? { due_at: iso(changes.due_at) } : {}),
    ...(changes.done !== undefined ? { done: changes.done } : {}),
    updated_at: new Date().toISOString(),
  };
  await repository.putMemory(orgId, updated, memory);
  return updated;
}

export async function deleteMemory(orgId: number, agentRef: string, memoryId: string): Promise<void> {
  const agent = await getAgent(orgId, agentRef);
  if (!(await repository.deleteMemory(orgId, agent.id, memoryId))) throw new NotFoundError('Memory not found');
}

export async function listMemories(orgId: number, agentRef: string, page: PageRequest) {
  const agent = await getAgent(orgId, agentRef);
  const { items, totalCount } = await repository.listMemories(orgId, agent.id, pageOffset(page), page.limit);
  return { items, ...pageInfo(page, totalCount) };
}

/**
 * The migration of memories stored before the due index (operator CLI, `npm run admin -- tasks
 * backfill-due`): each open task gets the due entry a write through the API would have given it,
 * so it comes due (`task.due`, and its call where the agent allows it) at the dueTasks schedule's
 * next run on or after its `due_at`; with `dueAfter`, a task due before it is indexed but not
 * announced. Every memory found is marked as kept by the index, in the same conditional
 * transaction, so a rerun (or one after an interruption) finds only what is left and a memory
 * written meanwhile is not touched: idempotent, safe beside traffic. A Scan, paged.
 */
export async function backfillDueTasks(
  options: { dueAfter?: Date; pageSize?: number } = {},
): Promise<{ found: number; armed: number; indexed: number; skipped: number }> {
  const counts = { found: 0, armed: 0, indexed: 0, skipped: 0 };
  for await (const page of repository.memoriesBeforeDueIndex(options.pageSize)) {
    for (const { orgId, memory } of page) {
      counts.found += 1;
      const arm = backfillStep(memory, options.dueAfter) === 'arm';
      counts[await repository.backfillDueIndex(orgId, memory, arm)] += 1;
    }
  }
  return counts;
}
