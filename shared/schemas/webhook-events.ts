import * as z from 'zod';
import { RunAnalysis } from './call-analysis.ts';
import { RunSms } from './text-messages.ts';
import { JsonObject, Timestamp } from './common.ts';
import { documentedInt, MAX_NAME_CHARS, MAX_STORED_CHARS } from './bounds.ts';
import { Memory } from './memories.ts';

/**
 * The catalogue of events a webhook can subscribe to: each event's name, when it fires and the
 * schema of its payload (Standard Webhooks' `{type, timestamp, data}`). The same schemas feed the
 * OpenAPI document's `webhooks` section, the validation of `events` on subscription and the
 * samples `POST /webhooks/{id}/test` sends.
 */
const CallCost = z
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
  .openapi('CallCost');

const CallIdentity = {
  organization_id: documentedInt(z.int()).openapi({ example: 1 }),
  workflow_id: documentedInt(z.int()).openapi({ description: "The agent's integer id.", example: 42 }),
  workflow_run_id: documentedInt(z.int()).openapi({ example: 1001 }),
  workflow_run_name: z.string().max(MAX_STORED_CHARS).openapi({ example: 'Call to +48601234561' }),
  phone_number: z
    .string()
    .max(MAX_STORED_CHARS)
    .nullable()
    .openapi({ description: 'The number called (E.164).', example: '+48601234561' }),
  created_at: Timestamp,
  initial_context: JsonObject,
  campaign_id: documentedInt(z.int())
    .nullable()
    .openapi({ description: 'The campaign that placed the call, if any.', example: null }),
};

const CallEndData = z.object({
  ...CallIdentity,
  status: z.enum(['completed', 'busy', 'no_answer', 'voicemail', 'failed']),
  ended_at: Timestamp,
  duration_seconds: documentedInt(z.int()).openapi({
    description: 'Whole seconds from answer to hang-up; 0 when never answered.',
    example: 37,
  }),
  gathered_context: JsonObject.openapi({ example: { call_disposition: 'confirmed' } }),
  call_disposition: z.string().max(MAX_STORED_CHARS).nullable().openapi({ example: 'confirmed' }),
  recording_url: z.string().max(1024).nullable().openapi({
    description: 'Storage key of the recording (fetch a link with the API).',
    example: 'runs/org-1/agent-42/run-1001/recording.wav',
  }),
  transcript_url: z.string().max(1024).nullable().openapi({ example: 'runs/org-1/agent-42/run-1001/transcript.txt' }),
  cost: CallCost.nullable(),
  sms: z.array(RunSms).max(MAX_STORED_CHARS).openapi({
    description: 'The text messages of the call (sent during it, and the replies received by its end), as on the run.',
  }),
  analysis: RunAnalysis.nullable().openapi({
    description:
      "The post-call analysis (the agent's `workflow_configurations.analysis`): the event waits for it, so it is `completed` or `failed`; null without a plan or a transcript.",
  }),
});

const CampaignData = z.object({
  organization_id: documentedInt(z.int()).openapi({ example: 1 }),
  campaign_id: documentedInt(z.int()).openapi({ example: 7 }),
  name: z.string().max(MAX_NAME_CHARS).openapi({ example: 'November reminders' }),
  workflow_id: documentedInt(z.int()).openapi({ example: 42 }),
  state: z.enum(['paused', 'completed']),
  total_rows: documentedInt(z.int()).openapi({ example: 120 }),
  processed_rows: documentedInt(z.int()).openapi({ example: 120 }),
  failed_rows: documentedInt(z.int()).openapi({ example: 4 }),
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
});

/** When each event is sent (the OpenAPI `webhooks` section and the README say the same). */
export const EVENT_DESCRIPTIONS = new Map<string, string>();

function envelope<T extends string, D extends z.ZodType>(type: T, data: D, name: string, description: string) {
  EVENT_DESCRIPTIONS.set(type, description);
  return z.object({ type: z.literal(type), timestamp: Timestamp, data }).openapi(name, { description });
}

export const CallStartedEvent = envelope(
  'call.started',
  z.object({ ...CallIdentity, answered_at: Timestamp }),
  'CallStartedEvent',
  'The callee answered and the agent started talking (the media stream began).',
);
export const CallCompletedEvent = envelope(
  'call.completed',
  CallEndData,
  'CallCompletedEvent',
  'A call ended, whatever the outcome (`status`): sent once per call, after the recording and transcript are saved.',
);
export const CallFailedEvent = envelope(
  'call.failed',
  CallEndData.extend({ status: z.literal('failed') }),
  'CallFailedEvent',
  'A call failed technically (dial failure, provider error, lost media stream, watchdog). The same call also sends `call.completed` with `status: "failed"`.',
);
export const CampaignCompletedEvent = envelope(
  'campaign.completed',
  CampaignData.extend({ state: z.literal('completed') }),
  'CampaignCompletedEvent',
  'Every contact of a campaign reached a final status. A completed campaign that gains contacts on a source re-sync runs again and sends this event again when it completes.',
);
export const CampaignPausedEvent = envelope(
  'campaign.paused',
  CampaignData.extend({ state: z.literal('paused') }),
  'CampaignPausedEvent',
  'A campaign was paused (`POST /campaigns/{id}/pause`); calls in progress finish.',
);

export const TestRunCompletedEvent = envelope(
  'test_run.completed',
  z.object({
    organization_id: documentedInt(z.int()).openapi({ example: 1 }),
    workflow_id: documentedInt(z.int()).openapi({ example: 42 }),
    test_run_id: documentedInt(z.int()).openapi({ example: 31 }),
    definition_id: documentedInt(z.int()).openapi({ example: 118 }),
    status: z.enum(['completed', 'cancelled']),
    summary: z.object({
      cases: documentedInt(z.int().gte(0)),
      passed: documentedInt(z.int().gte(0)),
      failed: documentedInt(z.int().gte(0)),
      errors: documentedInt(z.int().gte(0)),
      pending: documentedInt(z.int().gte(0)),
      cancelled: documentedInt(z.int().gte(0)),
      cost_usd: z.number().gte(0),
    }),
    failing_cases: z
      .array(
        z.object({ test_id: z.string().max(64), name: z.string().max(MAX_NAME_CHARS), verdict: z.string().max(16) }),
      )
      .max(200),
    completed_at: Timestamp,
  }),
  'TestRunCompletedEvent',
  'An agent test run finished (`completed`: every case has its verdict) or was cancelled (the verdicts so far stay). `GET /agents/{agent_id}/test-runs/{test_run_id}` has each case.',
);

export const SmsReceivedEvent = envelope(
  'sms.received',
  z.object({
    organization_id: documentedInt(z.int()).openapi({ example: 1 }),
    workflow_id: documentedInt(z.int()).openapi({ example: 42 }),
    workflow_run_id: documentedInt(z.int()).openapi({ description: 'The call the text replies to.', example: 1001 }),
    during_call: z.boolean().openapi({
      description:
        "Whether the call was in progress (the agent, once the call's media has started, takes the text as a turn of the caller's); false: it came after the call ended, within a day of its answer.",
    }),
    sms: RunSms,
  }),
  'SmsReceivedEvent',
  "The caller texted the agent's number, during their call or within a day of its answer: the text (`direction: inbound`, `status: received`) is on that run's `sms`. Texts from a number with no such call belong to no run and send no event.",
);

const NumberReviewedData = z.object({
  organization_id: documentedInt(z.int()).openapi({ example: 1 }),
  number_id: documentedInt(z.int()).openapi({ description: 'The number (`GET /numbers/{number_id}`).', example: 12 }),
  phone_number: z.string().max(32).openapi({ example: '+48512345678' }),
  end_user_id: documentedInt(z.int()).nullable().openapi({
    description:
      "The purchase's `end_user_id`: your own id of the subscriber the number was bought for, also named in the provider's review (Twilio's bundle and EndUser, Telnyx's `customer_reference`). Null for a number bought without one.",
    example: 1042,
  }),
  reason: z
    .string()
    .max(MAX_NAME_CHARS * 4)
    .nullable()
    .openapi({
      description: "The reviewer's reason (a rejection's; an approval's is null).",
      example: null,
    }),
  reviewed_by: z.enum(['provider', 'operator']).openapi({
    description:
      "Who decided: the provider's regulatory review, or the platform's operator overriding it (`npm run admin -- number approve|reject`).",
  }),
  reviewed_at: Timestamp,
});

export const NumberApprovedEvent = envelope(
  'number.approved',
  NumberReviewedData.extend({ status: z.literal('active') }),
  'NumberApprovedEvent',
  'A number held `pending` for regulatory review (a Polish mobile number) was approved: it is bought, carries traffic and renews monthly.',
);

export const NumberRejectedEvent = envelope(
  'number.rejected',
  NumberReviewedData.extend({ status: z.literal('rejected') }),
  'NumberRejectedEvent',
  "A number held `pending` for regulatory review was rejected, with the reviewer's reason: its price is refunded and it never carries traffic.",
);

export const MemoryCreatedEvent = envelope(
  'memory.created',
  z.object({
    organization_id: documentedInt(z.int()).openapi({ example: 1 }),
    memory: Memory,
    created_by: z.enum(['api', 'agent', 'assistant']).openapi({
      description:
        'Who wrote it: an API client (`POST /agents/{agent_id}/memories`), the agent during a call (its `save_note` tool), or the assistant after a call (`analysis.memories`).',
    }),
    workflow_run_id: documentedInt(z.int()).nullable().openapi({
      description: 'The call it was written from (the agent and the assistant); null from the API.',
      example: 1001,
    }),
  }),
  'MemoryCreatedEvent',
  'A note or task of an agent was written (`memory.workflow_id` is the agent; `due_at` makes it a task). Edits through `PATCH` send no event.',
);

export const TaskDueEvent = envelope(
  'task.due',
  z.object({
    organization_id: documentedInt(z.int()).openapi({ example: 1 }),
    memory: Memory,
    call_requested: z.boolean().openapi({
      description:
        "Whether the task starts a call to its `contact` now: the agent's `workflow_configurations.call_due_tasks` is on and the task has a contact. The call then follows the rules of any call (Do-not-call, calling hours, channels) and its run's `initial_context` names the task (`task_id`, `task`).",
    }),
  }),
  'TaskDueEvent',
  'An open task reached its `due_at` (checked every minute): sent once per `due_at` a task is given (a `PATCH` to another `due_at` arms it again); a task ticked off or deleted before then sends none.',
);

export const WEBHOOK_EVENTS = {
  'call.started': CallStartedEvent,
  'call.completed': CallCompletedEvent,
  'call.failed': CallFailedEvent,
  'campaign.completed': CampaignCompletedEvent,
  'campaign.paused': CampaignPausedEvent,
  'test_run.completed': TestRunCompletedEvent,
  'sms.received': SmsReceivedEvent,
  'number.approved': NumberApprovedEvent,
  'number.rejected': NumberRejectedEvent,
  'memory.created': MemoryCreatedEvent,
  'task.due': TaskDueEvent,
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as [WebhookEventType, ...WebhookEventType[]];
export type WebhookEvent = z.output<(typeof WEBHOOK_EVENTS)[WebhookEventType]>;

const SAMPLE_TIME = '2026-11-23T10:15:42.000Z';
const sampleCall = {
  organization_id: 1,
  workflow_id: 42,
  workflow_run_id: 1001,
  workflow_run_name: 'Call to +48601234561',
  phone_number: '+48601234561',
  created_at: '2026-11-23T10:15:00.000Z',
  initial_context: { name: 'Anna' },
  campaign_id: null,
};
const sampleEnd = {
  ...sampleCall,
  ended_at: SAMPLE_TIME,
  duration_seconds: 37,
  gathered_context: { call_disposition: 'confirmed' },
  call_disposition: 'confirmed',
  recording_url: 'runs/org-1/agent-42/run-1001/recording.wav',
  transcript_url: 'runs/org-1/agent-42/run-1001/transcript.txt',
  cost: { currency: 'USD' as const, telephony_usd: 0.014, platform_usd: 0.05, sms_usd: 0.0079, total_usd: 0.0719 },
  sms: [
    {
      id: 'sms_0mifk2x3aa1b2c3d4',
      direction: 'outbound' as const,
      timestamp: '2026-11-23T10:15:20.000Z',
      from: '+48221234500',
      to: '+48601234561',
      body: 'Your visit is confirmed: Tuesday 10:00.',
      status: 'delivered' as const,
      status_history: [
        { status: 'queued' as const, timestamp: '2026-11-23T10:15:20.000Z', error_code: null },
        { status: 'sent' as const, timestamp: '2026-11-23T10:15:20.300Z', error_code: null },
        { status: 'delivered' as const, timestamp: '2026-11-23T10:15:21.100Z', error_code: null },
      ],
      error_code: null,
      error_reason: null,
      segments: 1,
      cost_usd: 0.0079,
      sent_by: 'agent' as const,
    },
  ],
  analysis: {
    status: 'completed' as const,
    summary: 'The callee confirmed the visit on Tuesday at 10:00.',
    structured_data: { confirmed: true },
    success_evaluation: { successful: true, reason: 'The visit was confirmed.' },
    error: null,
    attempts: 1,
    completed_at: SAMPLE_TIME,
  },
};
const sampleCampaign = {
  organization_id: 1,
  campaign_id: 7,
  name: 'November reminders',
  workflow_id: 42,
  total_rows: 120,
  processed_rows: 120,
  failed_rows: 4,
  started_at: '2026-11-23T08:00:00.000Z',
};

const sampleNumberReview = {
  organization_id: 1,
  number_id: 12,
  phone_number: '+48512345678',
  end_user_id: 1042,
  reviewed_by: 'provider' as const,
  reviewed_at: SAMPLE_TIME,
};

const sampleMemory = {
  id: 'mem_Ab3dE6gH9jK2mN5p',
  workflow_id: 42,
  content: 'Call Anna back about the new appointment time',
  topic: 'callback',
  due_at: '2026-11-24T09:00:00.000Z',
  done: false,
  contact: '+48601234561',
  created_at: SAMPLE_TIME,
  updated_at: SAMPLE_TIME,
};

/** A sample of each event, with the organization's id: what `POST /webhooks/{id}/test` sends and the docs show. */
export function sampleEvent(type: WebhookEventType, organizationId = 1): WebhookEvent {
  const samples: Record<WebhookEventType, WebhookEvent> = {
    'call.started': {
      type: 'call.started',
      timestamp: '2026-11-23T10:15:05.000Z',
      data: { ...sampleCall, answered_at: '2026-11-23T10:15:05.000Z' },
    },
    'call.completed': { type: 'call.completed', timestamp: SAMPLE_TIME, data: { ...sampleEnd, status: 'completed' } },
    'call.failed': {
      type: 'call.failed',
      timestamp: SAMPLE_TIME,
      data: {
        ...sampleEnd,
        status: 'failed',
        duration_seconds: 0,
        gathered_context: {},
        call_disposition: null,
        recording_url: null,
        transcript_url: null,
        sms: [],
        analysis: null,
      },
    },
    'campaign.completed': {
      type: 'campaign.completed',
      timestamp: SAMPLE_TIME,
      data: { ...sampleCampaign, state: 'completed', completed_at: SAMPLE_TIME },
    },
    'campaign.paused': {
      type: 'campaign.paused',
      timestamp: SAMPLE_TIME,
      data: { ...sampleCampaign, state: 'paused', processed_rows: 37, completed_at: null },
    },
    'test_run.completed': {
      type: 'test_run.completed',
      timestamp: SAMPLE_TIME,
      data: {
        organization_id: 1,
        workflow_id: 42,
        test_run_id: 31,
        definition_id: 118,
        status: 'completed',
        summary: { cases: 3, passed: 2, failed: 1, errors: 0, pending: 0, cancelled: 0, cost_usd: 0.0214 },
        failing_cases: [{ test_id: 'test_Hq3mT8vW1xZ5bN7c', name: 'Reschedules to Friday', verdict: 'failed' }],
        completed_at: SAMPLE_TIME,
      },
    },
    'sms.received': {
      type: 'sms.received',
      timestamp: '2026-11-23T10:15:31.000Z',
      data: {
        organization_id: 1,
        workflow_id: 42,
        workflow_run_id: 1001,
        during_call: true,
        sms: {
          id: 'sms_r3f9c1a27be4d5a06c8e1f2b9',
          direction: 'inbound',
          timestamp: '2026-11-23T10:15:31.000Z',
          from: '+48601234561',
          to: '+48221234500',
          body: 'anna.nowak@example.com',
          status: 'received',
          status_history: [{ status: 'received', timestamp: '2026-11-23T10:15:31.000Z', error_code: null }],
          error_code: null,
          error_reason: null,
          segments: 1,
          cost_usd: 0,
          sent_by: null,
        },
      },
    },
    'number.approved': {
      type: 'number.approved',
      timestamp: SAMPLE_TIME,
      data: { ...sampleNumberReview, status: 'active', reason: null },
    },
    'number.rejected': {
      type: 'number.rejected',
      timestamp: SAMPLE_TIME,
      data: { ...sampleNumberReview, status: 'rejected', reason: 'The identity document has expired' },
    },
    'memory.created': {
      type: 'memory.created',
      timestamp: SAMPLE_TIME,
      data: { organization_id: 1, memory: sampleMemory, created_by: 'assistant', workflow_run_id: 1001 },
    },
    'task.due': {
      type: 'task.due',
      timestamp: '2026-11-24T09:00:00.000Z',
      data: { organization_id: 1, memory: sampleMemory, call_requested: true },
    },
  };
  const sample = samples[type];
  return { ...sample, data: { ...sample.data, organization_id: organizationId } } as WebhookEvent;
}
