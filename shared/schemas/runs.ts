import * as z from 'zod';
import { RunAnalysis } from './call-analysis.ts';
import { CallLatency } from './latency.ts';
import { RunSms } from './text-messages.ts';
import { freeFormObject, JsonObject, nameText, Timestamp } from './common.ts';
import { PaginationQuery, pageOf } from './pagination.ts';
import { E164PhoneNumber } from './phone-number.ts';
import {
  documentedInt,
  MAX_ID_CHARS,
  MAX_STORED_CHARS,
  MAX_URL_CHARS,
  MAX_STORED_ITEMS,
  MAX_HEADER_CHARS,
} from './bounds.ts';

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

/** Filters of an agent's run list; all optional, combined with AND. */
export const ListConversationsQuery = PaginationQuery.extend({
  status: z.enum(RUN_STATUSES).optional().openapi({ description: 'Only runs with this status.' }),
  disposition: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'Only runs whose `gathered_context.call_disposition` is this code.' }),
  created_from: z.iso.datetime({ offset: true }).optional().openapi({
    maxLength: MAX_HEADER_CHARS,
    description: 'Only runs created at or after this time.',
    example: '2026-11-01T00:00:00Z',
  }),
  created_to: z.iso.datetime({ offset: true }).optional().openapi({
    maxLength: MAX_HEADER_CHARS,
    description: 'Only runs created before this time.',
    example: '2026-12-01T00:00:00Z',
  }),
  search: z.string().min(1).max(100).optional().openapi({
    description: 'Only runs whose name or phone number contains this text (case-sensitive).',
    example: '+4860',
  }),
});
export type ListConversationsQuery = z.output<typeof ListConversationsQuery>;

/** A run may name the version it executes: a draft being tried, or an earlier version. */
const RunDefinitionId = documentedInt(z.int().gte(1)).optional().openapi({
  description:
    "A version of the agent's definition to run instead of its current one (`GET /agents/{agent_id}/definitions`), such as a draft being tried; the run's `definition_id` records it. 404 when the agent has no such version.",
  example: 118,
});

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
    definition_id: RunDefinitionId,
  })
  .openapi('PlaceCallRequest');

export const CallInitiationResponse = z
  .object({
    status: z.literal('initiated'),
    workflow_run_id: documentedInt(z.int()),
    workflow_run_name: z.string().max(MAX_STORED_CHARS),
  })
  .openapi('CallInitiationResponse');

export const CONVERSATION_MODES = ['webrtc', 'smallwebrtc', 'chat'] as const;
/** Telephony modes are accepted for compatibility and only create a record. */
export const TELEPHONY_MODES = ['twilio', 'vonage', 'vobiz', 'cloudonix', 'telnyx', 'stasis'] as const;

export const CreateConversationRequest = z
  .object({
    mode: z.enum([...CONVERSATION_MODES, ...TELEPHONY_MODES]),
    name: nameText(z.string().max(255)).optional().openapi({ description: 'Label; defaults to `<mode> <timestamp>`.' }),
    initial_context: InitialContext.default({}),
    definition_id: RunDefinitionId,
  })
  .openapi('CreateConversationRequest');

export const SessionAccess = z
  .object({
    url: z.string().max(MAX_URL_CHARS).openapi({
      description: "The media service's session WebSocket (`wss://<media host>/sessions`).",
      example: 'wss://media.example.com/sessions',
    }),
    run_ref: z
      .string()
      .max(MAX_ID_CHARS)
      .openapi({ description: 'The run, as the session names it.', example: '12.34.5678' }),
    token: z.string().max(MAX_URL_CHARS).openapi({
      description: 'Credential bound to this run; good for one connection, until `expires_at`.',
      example: '1795600000.3q2-7wxKpwY2ZJ3m3Jb3gq9LNGmIbb0r8o_Fq0oU2zE',
    }),
    expires_at: Timestamp,
  })
  .openapi('SessionAccess', {
    description:
      'How a browser connects the session of a `webrtc` (voice) or `chat` conversation: open a WebSocket to `url` and send ' +
      '`{"event":"start","start":{"customParameters":{"run_ref":…,"stream_token":…}}}` first. Voice then goes both ways as ' +
      'Twilio Media Streams frames (`media` with base64 8 kHz mu-law, 20 ms each; `mark`, `clear`); a chat sends ' +
      '`{"event":"message","text":…}` and receives each sentence of the answer as `{"event":"text","text":…}`, a `mark` at the ' +
      'end of each answer. Both receive `transcript`, `tool_call` and `knowledge` frames (see SessionEvent); echo every `mark` ' +
      'back (as played, for voice); the agent ending the conversation closes the socket (1000), a `stop` frame ends it from the ' +
      'client. `smallwebrtc` sends its SDP `offer` instead of audio frames and gets the `answer`: the audio goes over WebRTC (Opus). ' +
      'A refused connection is closed with 4000 + the HTTP status it would have (4401 credential, 4409 connected before or ended, 4429 concurrency limit, 4503 media task full) and the reason. ' +
      '`web/session.ts` does all this in a few lines.',
  });

export const ConversationRecord = z
  .object({
    id: documentedInt(z.int()),
    workflow_id: documentedInt(z.int()),
    name: z.string().max(MAX_STORED_CHARS),
    mode: z.string().max(MAX_ID_CHARS),
    created_at: Timestamp,
    definition_id: documentedInt(z.int()),
    initial_context: JsonObject,
    session: SessionAccess.nullable().openapi({
      description:
        'For `webrtc`, `smallwebrtc` and `chat`: where and how to connect the session (once). Null for the telephony modes, which only create a record.',
    }),
  })
  .openapi('ConversationRecord');

export const RunLog = z
  .object({ timestamp: Timestamp, level: z.string().max(MAX_ID_CHARS), message: z.string().max(MAX_STORED_CHARS) })
  .openapi('RunLog');
export const RunCost = z
  .object({
    currency: z.literal('USD'),
    telephony_usd: z.number(),
    platform_usd: z.number(),
    sms_usd: z
      .number()
      .optional()
      .openapi({ description: 'The texts the call sent (by segment); only when it sent any.' }),
    speech_to_speech_usd: z.number().optional().openapi({
      description:
        "The speech-to-speech model's audio and text tokens (an agent whose `engine` is `realtime`); only for such a call.",
    }),
    total_usd: z.number(),
  })
  .openapi('RunCost');

export const FlowPathStep = z
  .object({
    node_id: z.string().max(48),
    name: z.string().max(100),
    entered_at: Timestamp,
    left_at: Timestamp.nullable().openapi({ description: 'Null for the step the call ended in.' }),
    edge: z
      .object({ source: z.string().max(48), target: z.string().max(48), label: z.string().max(100).optional() })
      .nullable()
      .openapi({ description: 'The edge the call left the step by.' }),
    reason: z.string().max(MAX_STORED_CHARS).nullable().openapi({
      description:
        'Why: `the model judged "<condition>"` (a transition the model chose), `<expression> held` (a variable test), `the step was complete`; `global transition: …` for a global one. On the last step, `the caller wanted to end the call` when the caller ended the call in a step that is not an end (`edge` and `left_at` null).',
      example: 'age >= 18 held',
    }),
  })
  .openapi('FlowPathStep', { description: 'One step of a call through its conversation flow.' });

/** A run as listed: no links, logs or SMS. */
export const RunListItem = z
  .object({
    id: documentedInt(z.int()),
    workflow_id: documentedInt(z.int()),
    name: z.string().max(MAX_STORED_CHARS),
    mode: z.string().max(MAX_ID_CHARS),
    status: z.enum(RUN_STATUSES),
    phone_number: z.string().max(MAX_STORED_CHARS).nullable(),
    created_at: Timestamp,
    ended_at: Timestamp.nullable(),
    definition_id: documentedInt(z.int()),
    duration_seconds: documentedInt(z.int())
      .nullable()
      .openapi({ description: 'Whole seconds; null while the call is in progress.' }),
    initial_context: JsonObject,
    gathered_context: JsonObject.openapi({ description: 'Data the agent gathered, including `call_disposition`.' }),
  })
  .openapi('RunListItem');

export const Run = RunListItem.extend({
  recording_url: z
    .string()
    .max(1024)
    .nullable()
    .openapi({ description: 'Storage key of the recording (not a URL), kept for existing integrations.' }),
  transcript_url: z
    .string()
    .max(1024)
    .nullable()
    .openapi({ description: 'Storage key of the transcript (not a URL).' }),
  recording_download_url: z
    .string()
    .max(MAX_URL_CHARS)
    .nullable()
    .openapi({ description: 'Signed link to the WAV; needs no API key.' }),
  transcript_download_url: z
    .string()
    .max(MAX_URL_CHARS)
    .nullable()
    .openapi({ description: 'Signed link to the transcript text; needs no API key.' }),
  download_urls_expire_at: Timestamp.nullable().openapi({ description: 'One hour after this request.' }),
  logs: z.array(RunLog).max(MAX_STORED_ITEMS),
  sms: z.array(RunSms).max(MAX_STORED_ITEMS),
  cost: RunCost.nullable(),
  analysis: RunAnalysis.nullable(),
  answered_at: Timestamp.nullable().openapi({
    description:
      'When the callee answered (or the session connected): where the recording starts, so a transcript line at `start` plays at `start - answered_at`.',
  }),
  latency: CallLatency.nullable(),
  flow: z.array(FlowPathStep).max(MAX_STORED_ITEMS).nullable().openapi({
    description:
      "The call's path through the agent's conversation flow (docs/flows.md), in order, once the call has ended; null for a flat definition or while in progress. The variables extracted are in `gathered_context`.",
  }),
}).openapi('Run');

export const TranscriptResponse = z
  .object({
    run_id: documentedInt(z.int()),
    segments: z
      .array(
        z.object({
          role: z.enum(['user', 'assistant']),
          text: z.string().max(MAX_STORED_CHARS),
          start: Timestamp,
          end: Timestamp,
        }),
      )
      .max(MAX_STORED_ITEMS),
    download_url: z.string().max(MAX_URL_CHARS),
    expires_at: Timestamp,
  })
  .openapi('Transcript');

export const RecordingResponse = z
  .object({ download_url: z.string().max(MAX_URL_CHARS), content_type: z.string().max(255), expires_at: Timestamp })
  .openapi('Recording');

export const RunPage = pageOf(RunListItem, 'RunPage');

export const RecordingQuery = z.object({
  expires_in: documentedInt(z.int().gte(60).lte(86400))
    .default(3600)
    .openapi({ description: 'Lifetime of the link in seconds.' }),
});

export const ConversationIdParams = z.object({
  agent_id: z
    .string()
    .regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/)
    .openapi({ maxLength: 26 }),
  conversation_id: documentedInt(z.int().gte(1)),
});

export const LegacyWorkflowIdParam = z.object({
  workflow_id: documentedInt(z.int().gte(1)).openapi({ description: "The agent's integer id." }),
});

export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description:
      'Optional. A retried request with the same key returns the first response and never dials twice (kept 24 h).',
  }),
});
