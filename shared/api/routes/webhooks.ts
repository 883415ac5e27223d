import { PaginationQuery } from '../../schemas/pagination.ts';
import { CreatedWebhook, CreateWebhookRequest, DeliveryPage, WebhookIdParam, WebhookList } from '../../schemas/webhooks.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const WEBHOOK_DESCRIPTION =
  'Events are POSTed as JSON `{type, timestamp, data}` and signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, ' +
  '`webhook-signature` = `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the `whsec_` secret). Non-2xx answers and timeouts (10 s) ' +
  'are retried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±10 % jitter, `Retry-After` honoured); ' +
  '410 Gone disables the endpoint. Every retry of one event keeps its `webhook-id`.';

export const webhookRoutes = {
  createWebhook: defineRoute({
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'Subscribe an endpoint to events',
    description: `${WEBHOOK_DESCRIPTION} URLs that resolve to private, loopback or link-local addresses are refused (400).`,
    tags: ['Webhooks'],
    request: { body: CreateWebhookRequest },
    responses: { 201: { description: 'Created; the secret is shown only here', schema: CreatedWebhook }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  listWebhooks: defineRoute({
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'List webhook endpoints',
    tags: ['Webhooks'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page of webhooks', schema: WebhookList }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  deleteWebhook: defineRoute({
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}',
    group: 'webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'Pending retries to it stop.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listDeliveries: defineRoute({
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{webhook_id}/deliveries',
    group: 'webhooks',
    summary: 'Deliveries to a webhook, newest first',
    description: 'Each with its attempts (time, status code or error) and the next retry.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: DeliveryPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};
