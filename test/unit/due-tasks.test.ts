import { describe, expect, it } from 'vitest';
import {
  afterCallAttempt,
  backfillStep,
  dueEntryChange,
  dueStep,
  MAX_DUE_CALL_ATTEMPTS,
  type DueEntry,
} from '../../shared/domain/due-tasks.ts';
import { CapacityError, ConflictError, ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import type { Memory } from '../../shared/schemas/memories.ts';
import { attemptOf } from '../../shared/services/due-tasks.ts';

const DUE = '2026-11-24T09:00:00.000Z';
const LATER = '2026-11-25T09:00:00.000Z';
const NOW = new Date('2026-11-24T09:00:30.000Z');

const task = (changes: Partial<Memory> = {}): Memory => ({
  id: 'mem_Ab3dE6gH9jK2mN5p',
  workflow_id: 42,
  content: 'Call Anna back',
  topic: 'callback',
  due_at: DUE,
  done: false,
  contact: '+48601234561',
  created_at: '2026-11-23T10:00:00.000Z',
  updated_at: '2026-11-23T10:00:00.000Z',
  ...changes,
});
const open = { due_at: DUE, done: false };

describe('dueEntryChange: what a memory write does to its due entry', () => {
  it.each([
    ['a new open task arms it', null, open, 'arm'],
    ['a new note: nothing', null, { due_at: null, done: false }, 'keep'],
    ['a new task already ticked off: nothing', null, { due_at: DUE, done: true }, 'keep'],
    ['another due_at arms it again', open, { due_at: LATER, done: false }, 'arm'],
    ['the same instant in another offset: kept', open, { due_at: '2026-11-24T10:00:00+01:00', done: false }, 'keep'],
    ['content changed only: kept (announced once)', open, open, 'keep'],
    ['ticked off: disarmed', open, { due_at: DUE, done: true }, 'disarm'],
    ['due_at cleared: disarmed', open, { due_at: null, done: false }, 'disarm'],
    ['deleted: disarmed', open, null, 'disarm'],
    ['a note deleted: nothing', { due_at: null, done: false }, null, 'keep'],
    ['reopened with its due_at: kept spent', { due_at: DUE, done: true }, open, 'keep'],
    ['reopened with a new due_at: armed', { due_at: DUE, done: true }, { due_at: LATER, done: false }, 'arm'],
    ['a note becomes a task: armed', { due_at: null, done: false }, open, 'arm'],
  ] as const)('%s', (_name, before, after, expected) => {
    expect(dueEntryChange(before, after)).toBe(expected);
  });
});

describe('backfillStep: what the migration does with a memory stored before the due index', () => {
  it.each([
    ['an open task: armed', open, undefined, 'arm'],
    [
      'the same instant as --due-after in another offset: armed',
      { due_at: '2026-11-24T10:00:00+01:00', done: false },
      new Date(DUE),
      'arm',
    ],
    ['an open task due before --due-after: indexed, not announced', open, new Date(LATER), 'index'],
    ['an open task due at --due-after: armed', open, new Date(DUE), 'arm'],
    ['an open task due after --due-after: armed', { due_at: LATER, done: false }, new Date(DUE), 'arm'],
    ['a ticked-off task: indexed only', { due_at: DUE, done: true }, undefined, 'index'],
    ['a note: indexed only', { due_at: null, done: false }, undefined, 'index'],
  ] as const)('%s', (_name, memory, dueAfter, expected) => {
    expect(backfillStep(memory, dueAfter)).toBe(expected);
  });
});

describe('dueStep: the next step of a due entry', () => {
  const announce: DueEntry = { due_at: DUE, phase: 'announce', attempts: 0 };
  const call: DueEntry = { due_at: DUE, phase: 'call', attempts: 2 };
  it.each([
    ['due, calls allowed, a contact: announce and call', announce, task(), true, { kind: 'announce', call: true }],
    ['due, calls not allowed: announce only', announce, task(), false, { kind: 'announce', call: false }],
    ['due, no contact: announce only', announce, task({ contact: null }), true, { kind: 'announce', call: false }],
    ['not due yet', { ...announce, due_at: LATER }, task({ due_at: LATER }), true, { kind: 'wait' }],
    ['the task deleted: dropped', announce, undefined, true, { kind: 'drop' }],
    ['ticked off: dropped', announce, task({ done: true }), true, { kind: 'drop' }],
    ['given another due_at: this entry dropped', announce, task({ due_at: LATER }), true, { kind: 'drop' }],
    ['due_at cleared: dropped', announce, task({ due_at: null }), true, { kind: 'drop' }],
    ['announced, calling: call its contact', call, task(), true, { kind: 'call', to: '+48601234561' }],
    ['announced, calls turned off since: dropped', call, task(), false, { kind: 'drop' }],
    ['announced, ticked off since: no call', call, task({ done: true }), true, { kind: 'drop' }],
  ] as const)('%s', (_name, entry, memory, allowed, expected) => {
    expect(dueStep(entry, memory, allowed, NOW)).toEqual(expected);
  });
});

describe('afterCallAttempt: what a call attempt leaves', () => {
  it.each([
    ['placed: done', { kind: 'placed', runId: 7 }, 0, { kind: 'done' }],
    ['refused (Do-not-call): done, never retried', { kind: 'refused', reason: 'do_not_call' }, 0, { kind: 'done' }],
    [
      'outside calling hours: at the window, not counted',
      { kind: 'outside_calling_hours', retryAt: LATER },
      3,
      { kind: 'retry', at: LATER, attempts: 3 },
    ],
    [
      'channels busy: after Retry-After',
      { kind: 'busy', retryAfterSeconds: 30 },
      0,
      { kind: 'retry', at: '2026-11-24T09:01:00.000Z', attempts: 1 },
    ],
    [
      'a fault: a minute later',
      { kind: 'failed', reason: 'x' },
      1,
      { kind: 'retry', at: '2026-11-24T09:01:30.000Z', attempts: 2 },
    ],
    ['the last attempt: given up', { kind: 'failed', reason: 'x' }, MAX_DUE_CALL_ATTEMPTS - 1, { kind: 'done' }],
  ] as const)('%s', (_name, attempt, attempts, expected) => {
    expect(afterCallAttempt(attempt, attempts, NOW)).toEqual(expected);
  });
});

describe("attemptOf: a placement's refusal as an attempt", () => {
  it.each([
    ['Do-not-call', new ForbiddenError('do_not_call: +48601234561 is on the list'), 'refused'],
    [
      'calling hours',
      new ConflictError({ code: 'outside_calling_hours', message: 'm', retry_at: LATER, time_zones: [] }, 60),
      'outside_calling_hours',
    ],
    ['no channel', new CapacityError('busy', 30), 'busy'],
    [
      'the same key still placing',
      new ConflictError('A request with this Idempotency-Key is still being processed', 1),
      'busy',
    ],
    ['an archived agent', new ConflictError('The agent is archived'), 'refused'],
    ['an agent gone', new NotFoundError('Agent not found'), 'refused'],
    ['a fault', new Error('socket hang up'), 'failed'],
  ] as const)('%s', (_name, error, kind) => {
    expect(attemptOf(error).kind).toBe(kind);
  });
});
