import * as z from 'zod';
import { AGENT_STATUSES } from '../domain/agent.ts';
import { freeFormObject, JsonObject, nameText, storedAtMost, Timestamp } from './common.ts';
import { WorkflowConfigurations as VoiceSettings, WorkflowDefinitionDoc } from './voice-settings.ts';
import { documentedInt, MAX_KNOWLEDGE_TEXT_CHARS, MAX_NAME_CHARS } from './bounds.ts';
import { FlowDefinition } from './flows.ts';
import { isFlowDefinition } from '../domain/flows.ts';

/**
 * Stored-size caps of an agent's objects: with the name and counters they stay under DynamoDB's
 * 400 KB item, and the definition version (a separate item) under its own.
 */
export const AGENT_OBJECT_CAPS = {
  workflow_definition: 200_000,
  workflow_configurations: 64_000,
  template_context_variables: 32_000,
  call_disposition_codes: 32_000,
} as const;
/**
 * A flat definition (free-form, WorkflowDefinitionDoc) or a flow (`nodes` and `edges`): a flow is
 * checked as FlowDefinition, its 422s at their place inside it.
 */
export const WorkflowDefinition = freeFormObject(AGENT_OBJECT_CAPS.workflow_definition)
  .superRefine((definition, context) => {
    // The knowledge box is inlined into every prompt of the agent's calls: a string, bounded.
    const knowledge = definition.knowledge;
    if (knowledge !== undefined && typeof knowledge !== 'string')
      context.addIssue({ code: 'custom', path: ['knowledge'], message: 'The knowledge box is a string' });
    else if (typeof knowledge === 'string' && knowledge.length > MAX_KNOWLEDGE_TEXT_CHARS)
      context.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: MAX_KNOWLEDGE_TEXT_CHARS,
        inclusive: true,
        path: ['knowledge'],
        message: `Too big: expected string to have <=${MAX_KNOWLEDGE_TEXT_CHARS} characters`,
        input: knowledge,
      });
    if (!isFlowDefinition(definition)) return;
    const parsed = FlowDefinition.safeParse(definition);
    for (const issue of parsed.error?.issues ?? []) context.addIssue({ ...issue });
  })
  .openapi({
    description: `${WorkflowDefinitionDoc.description} At most 200 kB stored, nested at most 32 levels.`,
    anyOf: [{ $ref: '#/components/schemas/FlowDefinition' }, { type: 'object', additionalProperties: true }],
  });
const TemplateContextVariables = freeFormObject(AGENT_OBJECT_CAPS.template_context_variables);
const CallDispositionCodes = freeFormObject(AGENT_OBJECT_CAPS.call_disposition_codes);
const WorkflowConfigurations = storedAtMost(VoiceSettings, AGENT_OBJECT_CAPS.workflow_configurations);

const VoicemailMessage = z
  .string()
  .min(1)
  .max(1000)
  .openapi({
    description:
      'What an outbound call says to an answering machine, after its beep (or the end of its greeting), before hanging up; ' +
      'the call then ends `voicemail`. `null`: a call answered by a machine is hung up at once (also `voicemail`). ' +
      "Spoken by the telephony provider's text-to-speech. Calls take the message the agent had when they were placed.",
    example:
      'Hello, this is North Clinic calling about your appointment tomorrow at 10. Please call us back at +48 22 123 45 67.',
  });

export const Agent = z
  .object({
    id: documentedInt(z.int()).openapi({ description: 'Legacy integer id (`workflow_id` elsewhere).', example: 42 }),
    public_id: z.string().max(26).openapi({ example: 'agent_a1B2c3D4e5F6g7H8i9J0' }),
    name: z.string().max(MAX_NAME_CHARS),
    status: z.enum(AGENT_STATUSES),
    created_at: Timestamp,
    updated_at: Timestamp,
    workflow_definition: JsonObject.openapi({
      ...WorkflowDefinitionDoc,
      anyOf: [{ $ref: '#/components/schemas/FlowDefinition' }, { type: 'object', additionalProperties: true }],
    }),
    current_definition_id: documentedInt(z.int()),
    template_context_variables: JsonObject,
    call_disposition_codes: JsonObject,
    total_runs: documentedInt(z.int()),
    workflow_configurations: WorkflowConfigurations,
    voicemail_message: VoicemailMessage.nullable(),
  })
  .openapi('Agent');
export type Agent = z.infer<typeof Agent>;

const AgentName = nameText(z.string().min(1).max(255));

export const CreateAgentRequest = z
  .object({
    name: AgentName,
    workflow_definition: WorkflowDefinition.default({}),
    template_context_variables: TemplateContextVariables.default({}).openapi({
      description:
        'Default variables; prompts read them as `{{initial_context.<key>}}`. At most 32 kB stored, nested at most 32 levels.',
    }),
    call_disposition_codes: CallDispositionCodes.default({}),
    workflow_configurations: WorkflowConfigurations.default({}),
    voicemail_message: VoicemailMessage.nullable().optional(),
  })
  .openapi('CreateAgentRequest');
export type CreateAgentRequest = z.infer<typeof CreateAgentRequest>;

export const UpdateAgentRequest = z
  .object({
    name: AgentName.optional(),
    workflow_definition: WorkflowDefinition.optional().openapi({
      description:
        'A new definition gets a new `current_definition_id`. At most 200 kB stored, nested at most 32 levels.',
    }),
    template_context_variables: TemplateContextVariables.optional(),
    call_disposition_codes: CallDispositionCodes.optional(),
    workflow_configurations: WorkflowConfigurations.optional(),
    voicemail_message: VoicemailMessage.nullable().optional(),
  })
  .openapi('UpdateAgentRequest');
export type UpdateAgentRequest = z.infer<typeof UpdateAgentRequest>;

export const AgentIdParam = z.object({
  agent_id: z
    .string()
    .regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/)
    .openapi({ maxLength: 26 })
    .openapi({
      description: 'Public id (`agent_` + 20 letters or digits) or the legacy integer id.',
      example: 'agent_a1B2c3D4e5F6g7H8i9J0',
    }),
});

export const ListAgentsQuery = z.object({
  status: z.string().max(100).optional().openapi({
    description: 'One status or a comma-separated list of `active`, `archived`. Any other value gives 400.',
    example: 'active,archived',
  }),
  page: documentedInt(z.int().gte(1))
    .optional()
    .openapi({ description: 'With `limit`: page number, from 1. Without both, every agent is returned.' }),
  limit: documentedInt(z.int().gte(1).lte(100))
    .optional()
    .openapi({ description: 'Agents per page (at most 100); counts are in `X-Total-Count` and `X-Total-Pages`.' }),
});

export const AgentSummary = z
  .object({
    total_count: documentedInt(z.int()),
    active_count: documentedInt(z.int()),
    archived_count: documentedInt(z.int()),
    total_runs: documentedInt(z.int()).openapi({ description: 'Runs of every agent, archived ones included.' }),
    last_created_at: Timestamp.nullable(),
  })
  .openapi('AgentSummary');
export type AgentSummary = z.infer<typeof AgentSummary>;
