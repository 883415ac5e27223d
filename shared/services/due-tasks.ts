import { afterCallAttempt, dueStep, type CallAttempt } from '../domain/due-tasks.ts';
import { CapacityError, ConflictError, DomainError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import { emitTaskDue } from '../events/webhook-events.ts';
import { logger } from '../observability/logger.ts';
import { advanceDueEntry, dueEntries, removeDueEntry, type DueEntryRef } from '../repositories/due-tasks.ts';
import { getMemory } from '../repositories/memories.ts';
import type { Agent } from '../schemas/agents.ts';
import type { Memory } from '../schemas/memories.ts';
import { getAgent } from './agents.ts';
import { placeCallOnce } from './idempotent-calls.ts';

/** Entries handled per scheduled run at most; the rest wait for the next run (a minute later). */
const DUE_BATCH = 25;

/**
 * The scheduled job: every task due now sends `task.due`, once per `due_at`, then, when its agent
 * allows it (`workflow_configurations.call_due_tasks`), calls the task's contact as a trigger call
 * would (Do-not-call, calling hours, channels). Answers how many entries it handled.
 */
export async function runDueTasks(now = new Date()): Promise<number> {
  const due = await dueEntries(now.toISOString(), DUE_BATCH);
  for (const ref of due) {
    try {
      await runDueTask(ref, now);
    } catch (error) {
      // The entry stays where it is: the next run tries it again.
      logger.error('Due task failed', { ...refFields(ref), error: error as Error });
    }
  }
  return due.length;
}

const refFields = (ref: DueEntryRef) => ({
  organizationId: ref.organizationId,
  agentId: ref.agentId,
  memoryId: ref.memoryId,
});

async function agentOf(ref: DueEntryRef): Promise<Agent | undefined> {
  try {
    return await getAgent(ref.organizationId, String(ref.agentId));
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

async function runDueTask(ref: DueEntryRef, now: Date): Promise<void> {
  const [task, agent] = await Promise.all([getMemory(ref.organizationId, ref.agentId, ref.memoryId), agentOf(ref)]);
  const callsAllowed = agent?.status === 'active' && agent.workflow_configurations.call_due_tasks === true;
  const step = dueStep(ref.entry, agent ? task : undefined, callsAllowed, now);
  switch (step.kind) {
    case 'wait':
      return;
    case 'drop':
      await removeDueEntry(ref);
      return;
    case 'announce':
      // The entry is the outbox: it moves on only once the bus took the event (a crash before
      // sends it again; the fan-out delivers it once).
      await emitTaskDue(ref.organizationId, task!, step.call);
      logger.info('Task due', { ...refFields(ref), call: step.call });
      if (!step.call) await removeDueEntry(ref);
      else if (await advanceDueEntry(ref, { phase: 'call', at: now.toISOString(), attempts: 0 }))
        await runDueTask({ ...ref, entry: { ...ref.entry, phase: 'call', attempts: 0 } }, now);
      return;
    case 'call': {
      const attempt = await placeTaskCall(ref, task!, step.to);
      const next = afterCallAttempt(attempt, ref.entry.attempts, now);
      logger.info('Due task call', { ...refFields(ref), attempt });
      if (next.kind === 'done') await removeDueEntry(ref);
      else await advanceDueEntry(ref, { phase: 'call', at: next.at, attempts: next.attempts });
    }
  }
}

/**
 * One attempt to call the task's contact: a placement keyed by the task and its due_at, so a
 * retry after a crash (the call placed, the entry not yet removed) returns the first call's answer
 * and never dials twice.
 */
async function placeTaskCall(ref: DueEntryRef, task: Memory, to: string): Promise<CallAttempt> {
  try {
    const placed = await placeCallOnce(ref.organizationId, `task-due:${task.id}:${task.due_at}`, String(ref.agentId), {
      phone_number: to,
      initial_context: { task_id: task.id, task: task.content },
    });
    return { kind: 'placed', runId: placed.workflow_run_id };
  } catch (error) {
    return attemptOf(error);
  }
}

/** A placement's error as a call attempt's outcome. */
export function attemptOf(error: unknown): CallAttempt {
  if (error instanceof CapacityError) return { kind: 'busy', retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof ConflictError) {
    const detail = error.detail as { code?: string; retry_at?: string } | string;
    if (typeof detail === 'object' && detail.code === 'outside_calling_hours' && detail.retry_at)
      return { kind: 'outside_calling_hours', retryAt: detail.retry_at };
    // The same task's placement still running elsewhere: its answer is there in a moment.
    if (typeof detail === 'string' && error.retryAfterSeconds) return { kind: 'busy', retryAfterSeconds: 60 };
  }
  if (error instanceof RequestValidationError) return { kind: 'refused', reason: error.message };
  if (error instanceof DomainError && error.kind !== 'unavailable' && error.kind !== 'upstream')
    return { kind: 'refused', reason: typeof error.detail === 'string' ? error.detail : JSON.stringify(error.detail) };
  return { kind: 'failed', reason: (error as Error).message };
}
