/**
 * Which of an agent's memories a call reads (the spec: a memory is "a note or task of an agent's
 * assistant"). A memory with `due_at` is a task; without, a note. A call reads, bounded: the open
 * tasks soonest due first, the notes about its caller (the memory's `contact`, the caller's number)
 * newest first, then the agent's other notes newest first. Ticked-off tasks take no slot: they are
 * not in the index the call reads (repositories/memories.ts).
 */
import type { Memory } from '../schemas/memories.ts';

/** Slots per kind a call gives the agent's memories. */
export const MEMORY_SLOTS = { tasks: 10, callerNotes: 10, otherNotes: 10 } as const;

/** The index a memory is read through, or none (a ticked-off task is read by the API only). */
export type MemoryIndex = { kind: 'task'; order: string } | { kind: 'note'; contact: string | null; order: string };

export function memoryIndex(
  memory: Pick<Memory, 'id' | 'due_at' | 'done' | 'created_at' | 'contact'>,
): MemoryIndex | null {
  if (memory.due_at) return memory.done ? null : { kind: 'task', order: `${memory.due_at}#${memory.id}` };
  return { kind: 'note', contact: memory.contact ?? null, order: `${memory.created_at}#${memory.id}` };
}

/** The memories a call reads, in the order the prompt lists them, each once. */
export function memoriesForCall(parts: {
  tasks: readonly Memory[];
  callerNotes: readonly Memory[];
  otherNotes: readonly Memory[];
}): Memory[] {
  const seen = new Set<string>();
  return [
    ...parts.tasks.filter((memory) => !memory.done).slice(0, MEMORY_SLOTS.tasks),
    ...parts.callerNotes.slice(0, MEMORY_SLOTS.callerNotes),
    ...parts.otherNotes.slice(0, MEMORY_SLOTS.otherNotes),
  ].filter((memory) => !seen.has(memory.id) && Boolean(seen.add(memory.id)));
}
