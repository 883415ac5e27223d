import * as z from 'zod';
import { freeFormObject, JsonObject, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { E164PhoneNumber } from './phone-number.ts';

/** `initial_context` of a call or conversation: at most 32 kB stored (merged over the agent's defaults). */
export const MAX_INITIAL_CONTEXT_BYTES = 32_000;
const InitialContext = freeFormObject(MAX_INITIAL_CONTEXT_BYTES);

export const RUN_STATUSES = [
  'in_progress',
  'completed',
  'busy',
  'no_answer',
  'voicemail',
  'failed',
  'created',
] as const;

export const PlaceCallRequest = z
  .object({
    phone_number: E164PhoneNumber.openapi({
      description: 'Recipient in E.164, e.g. `+48601234567`.',
      example: '+48601234561',
    }),
    initial_context: InitialContext.default({}).openapi({
      description:
        'Variables for this call, read in prompts as `{{initial_context.<key>}}`; merged over the agent defaults. At most 32 kB stored, nested at most 32 levels.',
    }),
  })
  .openapi('PlaceCallRequest');

export const CallInitiationResponse = z
  .object({
    status: z.literal('initiated'),
    workflow_run_id: z.int(),
    workflow_run_name: z.string(),
  })
  .openapi('CallInitiationResponse');

export const CONVERSATION_MODES = ['webrtc', 'smallwebrtc', 'chat'] as const;
/** Telephony modes are accepted for compatibility and only create a record. */
export const TELEPHONY_MODES = ['twilio', 'vonage', 'vobiz', 'cloudonix', 'telnyx', 'stasis'] as const;

export const CreateConversationRequest = z
  .object({
    mode: z.enum([...CONVERSATION_MODES, ...TELEPHONY_MODES]),
    name: z.string().max(255).optional().openapi({ description: 'Label; defaults to `<mode> <timestamp>`.' }),
    initial_context: InitialContext.default({}),
  })
  .openapi('CreateConversationRequest');

export const ConversationRecord = z
  .object({
    id: z.int(),
    workflow_id: z.int(),
    name: z.string(),
    mode: z.string(),
    created_at: Timestamp,
    definition_id: z.int(),
    initial_context: JsonObject,
  })
  .openapi('ConversationRecord');

export const RunLog = z.object({ timestamp: Timestamp, level: z.string(), message: z.string() }).openapi('RunLog');
export const RunSms = z.object({ timestamp: Timestamp, to: z.string(), body: z.string() }).openapi('RunSms');
export const RunCost = z
  .object({
    currency: z.literal('USD'),
    telephony_usd: z.number(),
    platform_usd: z.number(),
    total_usd: z.number(),
  })
  .openapi('RunCost');

/** A run as listed: no links, logs or SMS. */
export const RunListItem = z
  .object({
    id: z.int(),
    workflow_id: z.int(),
    name: z.string(),
    mode: z.string(),
    status: z.enum(RUN_STATUSES),
    phone_number: z.string().nullable(),
    created_at: Timestamp,
    ended_at: Timestamp.nullable(),
    definition_id: z.int(),
    duration_seconds: z.int().nullable().openapi({ description: 'Whole seconds; null while the call is in progress.' }),
    initial_context: JsonObject,
    gathered_context: JsonObject.openapi({ description: 'Data the agent gathered, including `call_disposition`.' }),
  })
  .openapi('RunListItem');

export const Run = RunListItem.extend({
  recording_url: z
    .string()
    .nullable()
    .openapi({ description: 'Storage key of the recording (not a URL), kept for existing integrations.' }),
  transcript_url: z.string().nullable().openapi({ description: 'Storage key of the transcript (not a URL).' }),
  recording_download_url: z.string().nullable().openapi({ description: 'Signed link to the WAV; needs no API key.' }),
  transcript_download_url: z
    .string()
    .nullable()
    .openapi({ description: 'Signed link to the transcript text; needs no API key.' }),
  download_urls_expire_at: Timestamp.nullable().openapi({ description: 'One hour after this request.' }),
  logs: z.array(RunLog),
  sms: z.array(RunSms),
  cost: RunCost.nullable(),
}).openapi('Run');

export const TranscriptResponse = z
  .object({
    run_id: z.int(),
    segments: z.array(
      z.object({ role: z.enum(['user', 'assistant']), text: z.string(), start: Timestamp, end: Timestamp }),
    ),
    download_url: z.string(),
    expires_at: Timestamp,
  })
  .openapi('Transcript');

export const RecordingResponse = z
  .object({ download_url: z.string(), content_type: z.string(), expires_at: Timestamp })
  .openapi('Recording');

export const RunPage = pageOf(RunListItem, 'RunPage');

export const RecordingQuery = z.object({
  expires_in: z.int().gte(60).lte(86400).default(3600).openapi({ description: 'Lifetime of the link in seconds.' }),
});

export const ConversationIdParams = z.object({
  agent_id: z.string().regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/),
  conversation_id: z.int().gte(1),
});

export const LegacyWorkflowIdParam = z.object({
  workflow_id: z.int().gte(1).openapi({ description: "The agent's integer id." }),
});

export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description:
      'Optional. A retried request with the same key returns the first response and never dials twice (kept 24 h).',
  }),
});
