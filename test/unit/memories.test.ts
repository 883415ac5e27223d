import { describe, expect, it } from 'vitest';
import { memoriesForCall, memoryIndex, MEMORY_SLOTS } from '../../shared/domain/memories.ts';
import type { Memory } from '../../shared/schemas/memories.ts';

const memory = (id: string, fields: Partial<Memory> = {}): Memory => ({
  id,
  workflow_id: 1,
  content: id,
  topic: '',
  due_at: null,
  done: false,
  contact: null,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
  ...fields,
});

describe('memoryIndex', () => {
  it.each([
    [
      'an open task: by due date',
      { due_at: '2026-12-01T09:00:00.000Z' },
      { kind: 'task', order: '2026-12-01T09:00:00.000Z#m' },
    ],
    ['a ticked-off task: in no index', { due_at: '2026-12-01T09:00:00.000Z', done: true }, null],
    ['a note about no one', {}, { kind: 'note', contact: null, order: '2026-11-26T10:00:00.000Z#m' }],
    [
      'a note about a caller',
      { contact: '+48221234567' },
      { kind: 'note', contact: '+48221234567', order: '2026-11-26T10:00:00.000Z#m' },
    ],
  ] as const)('%s', (_name, fields, expected) => {
    expect(memoryIndex(memory('m', fields))).toEqual(expected);
  });
});

describe('memoriesForCall', () => {
  it('lists tasks, then the caller’s notes, then the others, each bounded, each memory once, no ticked-off task', () => {
    const many = (prefix: string, fields: Partial<Memory> = {}) =>
      Array.from({ length: 12 }, (_, index) => memory(`${prefix}${index}`, fields));
    const read = memoriesForCall({
      tasks: [
        memory('done', { due_at: '2026-12-01T00:00:00Z', done: true }),
        ...many('t', { due_at: '2026-12-02T00:00:00Z' }),
      ],
      callerNotes: many('c', { contact: '+48221234567' }),
      otherNotes: [memory('c0'), ...many('o')],
    });
    expect(read.map((item) => item.id)).toEqual([
      ...Array.from({ length: MEMORY_SLOTS.tasks }, (_, index) => `t${index}`),
      ...Array.from({ length: MEMORY_SLOTS.callerNotes }, (_, index) => `c${index}`),
      ...Array.from({ length: MEMORY_SLOTS.otherNotes - 1 }, (_, index) => `o${index}`),
    ]);
  });
});
