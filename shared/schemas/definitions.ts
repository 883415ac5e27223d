import * as z from 'zod';
import { DEFINITION_STATUSES } from '../domain/definitions.ts';
import { JsonObject, Timestamp } from './common.ts';
import { documentedInt } from './bounds.ts';
import { AgentIdParam, WorkflowDefinition } from './agents.ts';
import { PaginationQuery, pageOf } from './pagination.ts';
import { WorkflowDefinitionDoc } from './voice-settings.ts';

const DefinitionId = documentedInt(z.int().gte(1)).openapi({
  description: "Id of a definition version (an agent's `current_definition_id`, a run's `definition_id`).",
  example: 118,
});

const Note = z.string().min(1).max(500).openapi({
  description: 'What changed in this version, for its history (at most 500 characters).',
  example: 'Ask for the date of birth before the address',
});

const DefinitionStatus = z.enum(DEFINITION_STATUSES).openapi({
  description:
    '`current`: what calls, campaigns and conversations started without a `definition_id` run now; `published`: was current once (publishing it again rolls back to it); `draft`: saved, never published, only runs that name it run it.',
  example: 'current',
});

/** A version in the history: everything but the definition itself (up to 200 kB each). */
export const DefinitionSummary = z
  .object({
    id: DefinitionId,
    workflow_id: documentedInt(z.int()).openapi({ description: 'The agent (its integer id).', example: 42 }),
    status: DefinitionStatus,
    note: Note.nullable(),
    created_at: Timestamp,
    published_at: Timestamp.nullable().openapi({ description: 'When it was first published; `null` for a draft.' }),
  })
  .openapi('DefinitionSummary');
export type DefinitionSummary = z.infer<typeof DefinitionSummary>;

export const Definition = DefinitionSummary.extend({
  workflow_definition: JsonObject.openapi({
    ...WorkflowDefinitionDoc,
    anyOf: [{ $ref: '#/components/schemas/FlowDefinition' }, { type: 'object', additionalProperties: true }],
  }),
}).openapi('Definition');
export type Definition = z.infer<typeof Definition>;

export const DefinitionPage = pageOf(DefinitionSummary, 'DefinitionPage');

export const SaveDraftRequest = z
  .object({
    workflow_definition: WorkflowDefinition,
    note: Note.optional(),
  })
  .openapi('SaveDraftRequest');
export type SaveDraftRequest = z.infer<typeof SaveDraftRequest>;

export const DefinitionParams = AgentIdParam.extend({
  definition_id: documentedInt(z.int().gte(1)).openapi({ description: 'Id of a version of this agent.' }),
});

export const ListDefinitionsQuery = PaginationQuery;
