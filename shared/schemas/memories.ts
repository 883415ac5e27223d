import * as z from 'zod';
import { nameText, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ID_CHARS, MAX_REQUEST_CHARS } from './bounds.ts';

/** `due_at`: ISO 8601 date-time with an offset (`2026-12-01T09:00:00+01:00`), or null for none. */
const DueAt = z.iso.datetime({ offset: true }).nullable().openapi({
  maxLength: MAX_REQUEST_CHARS,
  description: 'ISO 8601 date-time with an offset, e.g. `2026-12-01T09:00:00+01:00`; null clears it.',
});

export const Memory = z
  .object({
    id: z.string().max(MAX_ID_CHARS).openapi({ example: 'mem_Ab3dE6gH9jK2mN5p' }),
    workflow_id: documentedInt(z.int()),
    content: z.string().max(10_000),
    topic: z.string().max(255),
    due_at: Timestamp.nullable(),
    done: z.boolean().openapi({ description: 'A task (a memory with `due_at`) is ticked off with `done: true`.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Memory', { description: 'A note or task the agent keeps about its work; `due_at` makes it a task.' });
export type Memory = z.infer<typeof Memory>;

export const CreateMemoryRequest = z
  .object({
    content: z.string().min(1).max(10_000),
    topic: nameText(z.string().max(255)).default(''),
    due_at: DueAt.optional(),
  })
  .openapi('CreateMemoryRequest');

export const UpdateMemoryRequest = z
  .object({
    content: z.string().min(1).max(10_000).optional(),
    topic: nameText(z.string().max(255)).optional(),
    due_at: DueAt.optional(),
    done: z.boolean().optional(),
  })
  .openapi('UpdateMemoryRequest');

export const MemoryPage = pageOf(Memory, 'MemoryPage');

export const MemoryIdParams = z.object({
  agent_id: z
    .string()
    .regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/)
    .openapi({ maxLength: 26 }),
  memory_id: z
    .string()
    .regex(/^mem_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 20 }),
});
