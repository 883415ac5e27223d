import * as z from 'zod';
import { Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';

export const WEBHOOK_EVENT_TYPES = ['call.completed'] as const;

export const CreateWebhookRequest = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2048).openapi({ description: 'HTTPS endpoint (plain HTTP is accepted only by the local stack).', example: 'https://example.com/hooks/voice' }),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).default(['call.completed']),
  })
  .openapi('CreateWebhookRequest');

export const Webhook = z
  .object({
    id: z.string().openapi({ example: 'wh_Ab3dE6gH9jK2mN5p' }),
    url: z.string(),
    events: z.array(z.string()),
    status: z.enum(['active', 'disabled']).openapi({ description: '`disabled` after the endpoint answered 410 Gone.' }),
    disabled_reason: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('Webhook');

export const CreatedWebhook = Webhook.extend({
  secret: z.string().openapi({ description: 'Standard Webhooks signing secret (`whsec_…`), shown only in this response.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}).openapi('CreatedWebhook');

export const WebhookList = z.object({ items: z.array(Webhook) }).openapi('WebhookList');

export const WebhookIdParam = z.object({ webhook_id: z.string().regex(/^wh_[A-Za-z0-9]{16}$/) });

export const DeliveryAttempt = z
  .object({ attempt: z.int(), at: Timestamp, status_code: z.int().nullable(), error: z.string().nullable(), duration_ms: z.int() })
  .openapi('WebhookDeliveryAttempt');

export const Delivery = z
  .object({
    message_id: z.string().openapi({ description: 'The `webhook-id` header: the same on every retry of one event.' }),
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    created_at: Timestamp,
    attempts: z.array(DeliveryAttempt),
    next_attempt_at: Timestamp.nullable(),
  })
  .openapi('WebhookDelivery');

export const DeliveryPage = pageOf(Delivery, 'WebhookDeliveryPage');
