/**
 * When a task comes due (a memory with `due_at`, not ticked off) and what follows: `task.due` once
 * per `due_at` the task is given, then, when the agent allows it (`call_due_tasks`) and the task
 * names a contact, one call to that contact, under the rules of any call. A task's due entry (its
 * place in the table's due index, repositories/due-tasks.ts) carries it through these steps; the
 * scheduled function reads the entries due and applies these rules.
 */
import type { Memory } from '../schemas/memories.ts';

type TaskState = Pick<Memory, 'due_at' | 'done'>;

const isOpenTask = (memory: TaskState | null): memory is TaskState & { due_at: string } =>
  Boolean(memory?.due_at) && !memory?.done;

/**
 * What a write of a memory does to its due entry: `arm` (put one at `due_at`, replacing any) for a
 * new open task or a new `due_at`; `disarm` when it stops being an open task (ticked off, `due_at`
 * cleared, deleted: `after` null); `keep` otherwise. Reopening a task keeps its `due_at`'s
 * announcement spent (it arms only with a new `due_at`).
 */
export function dueEntryChange(before: TaskState | null, after: TaskState | null): 'arm' | 'disarm' | 'keep' {
  if (!isOpenTask(after)) return isOpenTask(before) ? 'disarm' : 'keep';
  const sameDueAt = Boolean(before?.due_at) && Date.parse(before!.due_at!) === Date.parse(after.due_at);
  return sameDueAt ? 'keep' : 'arm';
}

/** A due entry: the `due_at` it was armed for, and its step (announce with `task.due`, then call). */
export interface DueEntry {
  due_at: string;
  phase: 'announce' | 'call';
  /** Call attempts made (a busy organization or a transient failure tries again). */
  attempts: number;
}

export type DueStep =
  /** The entry is stale (the task was deleted, ticked off or given another due_at): remove it. */
  | { kind: 'drop' }
  /** Not due yet. */
  | { kind: 'wait' }
  /** Send `task.due`; then call (the entry moves to `call`) or not (the entry goes). */
  | { kind: 'announce'; call: boolean }
  | { kind: 'call'; to: string };

/** The next step of a due entry read at `now`, with its task (undefined: deleted) and the agent's setting. */
export function dueStep(entry: DueEntry, task: Memory | undefined, callsAllowed: boolean, now: Date): DueStep {
  if (!task || !isOpenTask(task) || Date.parse(task.due_at) !== Date.parse(entry.due_at)) return { kind: 'drop' };
  if (entry.phase === 'announce') {
    if (Date.parse(entry.due_at) > now.getTime()) return { kind: 'wait' };
    return { kind: 'announce', call: callsAllowed && task.contact !== null };
  }
  // The setting turned off (or the contact gone) after the announcement: no call.
  return callsAllowed && task.contact ? { kind: 'call', to: task.contact } : { kind: 'drop' };
}

/** How one attempt to place a due task's call ended (the placement's errors, mapped). */
export type CallAttempt =
  | { kind: 'placed'; runId: number }
  /** Refused for good: Do-not-call, the agent archived or gone, the numbers' state. */
  | { kind: 'refused'; reason: string }
  | { kind: 'outside_calling_hours'; retryAt: string }
  /** Every channel of the organization busy. */
  | { kind: 'busy'; retryAfterSeconds: number }
  /** Anything else (the provider account unusable, a fault): tried again a minute later. */
  | { kind: 'failed'; reason: string };

/** Busy or failed attempts of one task's call before it is given up (calling hours do not count). */
export const MAX_DUE_CALL_ATTEMPTS = 10;
const FAILED_RETRY_MS = 60_000;

/** What a call attempt leaves: the entry removed, or moved to when the call is tried again. */
export function afterCallAttempt(
  attempt: CallAttempt,
  attempts: number,
  now: Date,
): { kind: 'done' } | { kind: 'retry'; at: string; attempts: number } {
  switch (attempt.kind) {
    case 'placed':
    case 'refused':
      return { kind: 'done' };
    case 'outside_calling_hours':
      return { kind: 'retry', at: attempt.retryAt, attempts };
    case 'busy':
    case 'failed': {
      if (attempts + 1 >= MAX_DUE_CALL_ATTEMPTS) return { kind: 'done' };
      const delay = attempt.kind === 'busy' ? attempt.retryAfterSeconds * 1000 : FAILED_RETRY_MS;
      return { kind: 'retry', at: new Date(now.getTime() + delay).toISOString(), attempts: attempts + 1 };
    }
  }
}

/**
 * What the migration of memories stored before the due index (`tasks backfill-due`) does with one:
 * `arm` its due entry (an open task with `due_at`, unless it was due before `dueAfter`, which the
 * operator may choose not to announce so late) or only `index` it (notes, ticked-off tasks, tasks
 * left overdue): either way the memory is marked as kept by the index, so a rerun leaves it alone.
 */
export function backfillStep(memory: TaskState, dueAfter?: Date): 'arm' | 'index' {
  if (!isOpenTask(memory)) return 'index';
  return dueAfter && Date.parse(memory.due_at) < dueAfter.getTime() ? 'index' : 'arm';
}
