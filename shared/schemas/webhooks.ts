import * as z from 'zod';
import { Timestamp } from './common.ts';
import { guardedUrl } from './outbound-url.ts';
import { pageOf } from './pagination.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '../domain/webhook-limits.ts';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.ts';
import { documentedInt, MAX_ID_CHARS, MAX_STORED_CHARS, MAX_STORED_ITEMS, MAX_MESSAGE_ID_CHARS } from './bounds.ts';

const EventType = z.enum(WEBHOOK_EVENT_TYPES).openapi('WebhookEventType', {
  description: 'An event of the catalogue; payloads are in the `webhooks` section of this document.',
});

export const CreateWebhookRequest = z
  .object({
    url: guardedUrl(
      'The HTTPS endpoint deliveries are POSTed to; a redirect is an answer, not followed.',
      '10 s per attempt, 64 KiB of response read',
    ).openapi({ example: 'https://example.com/hooks/voice' }),
    events: z
      .array(EventType)
      .min(1)
      .max(20)
      .default(['call.completed'])
      .openapi({
        description: 'The events this endpoint receives (each one of the catalogue); default `["call.completed"]`.',
        example: ['call.completed', 'call.failed'],
      }),
  })
  .openapi('CreateWebhookRequest');

export const Webhook = z
  .object({
    id: z.string().max(MAX_ID_CHARS).openapi({ example: 'wh_Ab3dE6gH9jK2mN5p' }),
    url: z.string().max(2048),
    events: z.array(z.string().max(MAX_ID_CHARS)).max(MAX_STORED_ITEMS),
    status: z.enum(['active', 'disabled']).openapi({ description: '`disabled` after the endpoint answered 410 Gone.' }),
    disabled_reason: z.string().max(MAX_STORED_CHARS).nullable(),
    previous_secret_expires_at: Timestamp.nullable().openapi({
      description: 'After a secret rotation: until when deliveries are also signed with the previous secret.',
    }),
    created_at: Timestamp,
  })
  .openapi('Webhook');

export const CreatedWebhook = Webhook.extend({
  secret: z.string().max(128).openapi({
    description: 'Standard Webhooks signing secret (`whsec_…`), shown only in this response; stored encrypted.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('CreatedWebhook');

export const UpdateWebhookRequest = z
  .object({
    events: z
      .array(EventType)
      .min(1)
      .max(20)
      .optional()
      .openapi({
        description: 'The events this endpoint receives from now on (replaces the list).',
        example: ['call.completed', 'campaign.completed'],
      }),
  })
  .openapi('UpdateWebhookRequest');

export const RotateSecretRequest = z
  .object({
    overlap_seconds: documentedInt(z.int().gte(0).lte(604_800)).default(DEFAULT_ROTATION_OVERLAP_SECONDS).openapi({
      description:
        'How long deliveries also carry a signature with the previous secret (default 24 h, at most 7 days; 0 ends it at once).',
      example: 3600,
    }),
  })
  .openapi('RotateSecretRequest');

export const TestWebhookRequest = z
  .object({
    event_type: EventType.optional().openapi({
      description: 'The sample to send; default: the first event the endpoint subscribes to.',
      example: 'call.completed',
    }),
  })
  .openapi('TestWebhookRequest');

export const WebhookTestResult = z
  .object({
    message_id: z
      .string()
      .max(MAX_MESSAGE_ID_CHARS)
      .openapi({ description: 'The `webhook-id` of the sample (`msg_test_…`).' }),
    event_type: EventType,
    delivered: z.boolean().openapi({ description: 'The endpoint answered 2xx.' }),
    status_code: documentedInt(z.int()).nullable(),
    error: z
      .string()
      .max(MAX_STORED_CHARS)
      .nullable()
      .openapi({ description: '`timeout` or `network_error` when there was no answer.' }),
    duration_ms: documentedInt(z.int()),
  })
  .openapi('WebhookTestResult');

export const WebhookList = pageOf(Webhook, 'WebhookList');

export const WebhookIdParam = z.object({
  webhook_id: z
    .string()
    .regex(/^wh_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 19 }),
});
export const DeliveryParams = WebhookIdParam.extend({
  delivery_id: z
    .string()
    .regex(/^msg_[A-Za-z0-9_-]{1,200}$/)
    .openapi({ maxLength: 204 })
    .openapi({ description: "The delivery's `message_id` (its `webhook-id` header)." }),
});

export const DeliveryAttempt = z
  .object({
    attempt: documentedInt(z.int()),
    at: Timestamp,
    status_code: documentedInt(z.int()).nullable(),
    error: z.string().max(MAX_STORED_CHARS).nullable(),
    duration_ms: documentedInt(z.int()),
  })
  .openapi('WebhookDeliveryAttempt');

export const Delivery = z
  .object({
    message_id: z
      .string()
      .max(MAX_MESSAGE_ID_CHARS)
      .openapi({ description: 'The `webhook-id` header: the same on every retry of one event.' }),
    event_type: z.string().max(MAX_ID_CHARS),
    status: z.enum(['pending', 'delivered', 'failed']),
    created_at: Timestamp,
    attempts: z.array(DeliveryAttempt).max(MAX_STORED_ITEMS),
    next_attempt_at: Timestamp.nullable(),
  })
  .openapi('WebhookDelivery');

export const DeliveryPage = pageOf(Delivery, 'WebhookDeliveryPage');
