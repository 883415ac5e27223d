import * as z from 'zod';
import { nameText, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ID_CHARS } from './bounds.ts';

export const Trigger = z
  .object({
    id: z.string().max(MAX_ID_CHARS).openapi({ example: 'trg_Ab3dE6gH9jK2mN5p' }),
    workflow_id: documentedInt(z.int()).openapi({ description: 'The agent the trigger calls with.' }),
    name: z.string().max(255),
    created_at: Timestamp,
  })
  .openapi('Trigger');

export const CreateTriggerRequest = z
  .object({
    workflow_id: documentedInt(z.int().gte(1)).openapi({ description: 'Integer id of the agent.' }),
    name: nameText(z.string().min(1).max(255)).optional().openapi({ description: 'Label; defaults to `API trigger`.' }),
  })
  .openapi('CreateTriggerRequest');

export const TriggerPage = pageOf(Trigger, 'TriggerPage');

export const TriggerIdParam = z.object({
  trigger_id: z
    .string()
    .regex(/^trg_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 20 }),
});
