import * as z from 'zod';
import { nameText, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ID_CHARS, MAX_REQUEST_CHARS } from './bounds.ts';

/** The person a memory is about: their phone number (E.164), read in that person's calls first. */
const Contact = z
  .string()
  .regex(/^\+[1-9][0-9]{6,14}$/)
  .openapi({
    maxLength: 16,
    description:
      'The person the memory is about, as an E.164 phone number: a call with that number reads its notes first. null: about no one in particular.',
    example: '+48221234567',
  });

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
    done: z.boolean().openapi({
      description: 'A task (a memory with `due_at`) is ticked off with `done: true`; a call no longer reads it.',
    }),
    contact: Contact.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Memory', {
    description:
      "A note or task of the agent's assistant; `due_at` makes it a task. A call reads the open tasks soonest due first (10), the notes about its caller (`contact`) and the other notes newest first (10 each).",
  });
export type Memory = z.infer<typeof Memory>;

export const CreateMemoryRequest = z
  .object({
    content: z.string().min(1).max(10_000),
    topic: nameText(z.string().max(255)).default(''),
    due_at: DueAt.optional(),
    contact: Contact.nullable().optional(),
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
