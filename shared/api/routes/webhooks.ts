import { PaginationQuery } from '../../schemas/pagination.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import {
  CreatedWebhook,
  CreateWebhookRequest,
  Delivery,
  DeliveryPage,
  DeliveryParams,
  RotateSecretRequest,
  TestWebhookRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookIdParam,
  WebhookList,
  WebhookTestResult,
} from '../../schemas/webhooks.ts';
import { MAX_WEBHOOKS_PER_ORGANIZATION } from '../../domain/webhook-limits.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const WEBHOOK_DESCRIPTION =
  'Events (`call.started`, `call.completed`, `call.failed`, `campaign.completed`, `campaign.paused`, `test_run.completed`, `number.approved`, `number.rejected`, `memory.created`, `task.due`; payloads in the `webhooks` section) ' +
  'are POSTed as JSON `{type, timestamp, data}` and signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, ' +
  '`webhook-signature` = `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the `whsec_` secret; during a secret rotation two ' +
  'space-separated signatures). One delivery per event and endpoint. Non-2xx answers and timeouts (10 s) ' +
  'are retried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±10 % jitter, `Retry-After` honoured); ' +
  '410 Gone disables the endpoint. Every retry of one event keeps its `webhook-id`.';

const CONFLICT = (description: string) => ({ 409: { description, schema: ErrorResponse } });

export const webhookRoutes = {
  createWebhook: defineRoute({
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'Subscribe an endpoint to events',
    description:
      `${WEBHOOK_DESCRIPTION} URLs that resolve to private, loopback or link-local addresses are refused (400). ` +
      `At most ${MAX_WEBHOOKS_PER_ORGANIZATION} endpoints per organization (409 beyond). \`events\` must name events of the catalogue (422 otherwise).`,
    tags: ['Webhooks'],
    request: { body: CreateWebhookRequest },
    responses: {
      201: { description: 'Created; the secret is shown only here', schema: CreatedWebhook },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...CONFLICT(`The organization has ${MAX_WEBHOOKS_PER_ORGANIZATION} endpoints already`),
      ...VALIDATION,
    },
  }),
  listWebhooks: defineRoute({
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'List webhook endpoints',
    description: 'Secrets are never listed; `previous_secret_expires_at` shows a rotation in progress.',
    tags: ['Webhooks'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page of webhooks', schema: WebhookList }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  updateWebhook: defineRoute({
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/webhooks/{webhook_id}',
    group: 'webhooks',
    summary: 'Change the events an endpoint subscribes to',
    description:
      'Replaces `events` (each one of the catalogue, 422 otherwise). Events already fanned out to the endpoint are still delivered.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam, body: UpdateWebhookRequest },
    responses: { 200: { description: 'The webhook', schema: Webhook }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
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
  testWebhook: defineRoute({
    operationId: 'testWebhook',
    method: 'POST',
    path: '/webhooks/{webhook_id}/test',
    group: 'webhooks',
    summary: 'Send a signed sample event now',
    description:
      'Sends a sample of one event (default: the first the endpoint subscribes to), signed like every delivery, and answers with ' +
      "the endpoint's response. The sample's `webhook-id` starts with `msg_test_`; nothing is recorded or retried.",
    tags: ['Webhooks'],
    request: { params: WebhookIdParam, body: TestWebhookRequest, bodyRequired: false },
    responses: {
      200: { description: "The endpoint's answer", schema: WebhookTestResult },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  retryDelivery: defineRoute({
    operationId: 'retryWebhookDelivery',
    method: 'POST',
    path: '/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
    group: 'webhooks',
    summary: 'Deliver an event again',
    description:
      'Sends a delivered or failed delivery again at once, with the same `webhook-id` and body (receivers deduplicate on it), then ' +
      'follows the retry schedule if the endpoint fails. 409 while the delivery is still pending (it is retried on its schedule) ' +
      'or when the endpoint is disabled.',
    tags: ['Webhooks'],
    request: { params: DeliveryParams },
    responses: {
      202: { description: 'Accepted: the delivery is pending again', schema: Delivery },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...CONFLICT('Still pending, or the endpoint is disabled'),
      ...VALIDATION,
    },
  }),
  rotateSecret: defineRoute({
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{webhook_id}/rotate-secret',
    group: 'webhooks',
    summary: 'Replace the signing secret, with an overlap',
    description:
      'Returns a new `whsec_` secret (shown only here). For `overlap_seconds` (default 24 h) every delivery carries two signatures in ' +
      '`webhook-signature`, space-separated: one with the new secret and one with the previous, so a receiver can switch secrets ' +
      'without rejecting an event (Standard Webhooks libraries accept any valid one). After the overlap only the new secret signs.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam, body: RotateSecretRequest, bodyRequired: false },
    responses: {
      200: { description: 'The webhook with its new secret', schema: CreatedWebhook },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...CONFLICT('Rotated concurrently'),
      ...VALIDATION,
    },
  }),
};
