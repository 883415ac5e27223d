import * as z from 'zod';
import { Timestamp } from './common.ts';
import { documentedInt, MAX_STORED_CHARS } from './bounds.ts';

/** A JSON schema that zod can read (`z.fromJSONSchema`), of an object: what the analysis fills. */
const StructuredDataSchema = z.record(z.string(), z.unknown()).superRefine((schema, context) => {
  if (schema.type !== 'object') {
    context.addIssue({ code: 'custom', message: 'The structured data schema must be a JSON schema of type object' });
    return;
  }
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    context.addIssue({ code: 'custom', message: `Not a usable JSON schema: ${(error as Error).message}` });
  }
});

/** Post-call analysis (shared/services/call-analysis.ts): after a run ends, the model reads its transcript. */
export const CallAnalysisPlan = z
  .strictObject({
    summary_prompt: z.string().min(1).max(2000).optional().openapi({
      description: 'How to summarize the call (default: a short neutral summary of what was said and agreed).',
    }),
    structured_data_schema: StructuredDataSchema.optional().openapi({
      description:
        'A JSON schema (type object) of the data to extract from the transcript; the answer is validated by it.',
    }),
    success_criteria: z.string().min(1).max(2000).optional().openapi({
      description: 'What makes the call a success; the evaluation says whether it was, and why.',
    }),
    memories: z
      .boolean()
      .optional()
      .openapi({
        description:
          "The agent's assistant: with the analysis, the model writes notes (what was learned about the caller or the business) and tasks " +
          "with `due_at` (a promised callback) as the agent's memories, at most 5 a call, none repeating one the agent has (docs/voice-agent.md).",
      }),
  })
  .openapi('CallAnalysisPlan', {
    description:
      "Post-call analysis: once a call or session with a transcript ends, the model reads the transcript and gives a summary, structured data and a success evaluation (the run's `analysis`). The run completes without waiting for it; the `call.completed` webhook waits for it and carries it.",
    example: {
      summary_prompt: 'Summarize in two sentences.',
      structured_data_schema: {
        type: 'object',
        properties: { preferred_day: { type: 'string' }, wants_callback: { type: 'boolean' } },
        required: ['preferred_day', 'wants_callback'],
      },
      success_criteria: 'The caller booked a visit.',
    },
  });
export type CallAnalysisPlan = z.infer<typeof CallAnalysisPlan>;

export const ANALYSIS_STATUSES = ['pending', 'completed', 'failed'] as const;

/** A run's post-call analysis, as stored and returned. */
export const RunAnalysis = z
  .object({
    status: z.enum(ANALYSIS_STATUSES).openapi({
      description:
        '`pending` while the model works (seconds after the run ends), then `completed`, or `failed` (see `error`) once every attempt failed.',
    }),
    summary: z.string().max(MAX_STORED_CHARS).nullable(),
    structured_data: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "Filled by the agent's `structured_data_schema`; null without one." }),
    success_evaluation: z
      .object({ successful: z.boolean(), reason: z.string().max(MAX_STORED_CHARS) })
      .nullable()
      .openapi({ description: "Judged by the agent's `success_criteria`; null without them." }),
    error: z
      .string()
      .max(MAX_STORED_CHARS)
      .nullable()
      .openapi({ description: 'Why the analysis failed (the last attempt).' }),
    attempts: documentedInt(z.int()).openapi({ description: 'Model requests made (at most 3).' }),
    completed_at: Timestamp.nullable(),
  })
  .openapi('RunAnalysis', {
    description:
      "The post-call analysis of a run (the agent's `workflow_configurations.analysis`); null when the agent has none or the run has no transcript.",
    example: {
      status: 'completed',
      summary: 'Anna asked to move her visit and chose Tuesday morning.',
      structured_data: { preferred_day: 'Tuesday', wants_callback: false },
      success_evaluation: { successful: true, reason: 'A new visit time was agreed.' },
      error: null,
      attempts: 1,
      completed_at: '2026-11-24T10:15:42Z',
    },
  });
export type RunAnalysis = z.infer<typeof RunAnalysis>;
