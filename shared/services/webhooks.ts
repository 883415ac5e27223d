import { Webhook as StandardWebhook } from 'standardwebhooks';
import { NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { decideAfterAttempt, type AttemptResult } from '../domain/webhook-retry.ts';
import * as repository from '../repositories/webhooks.ts';
import { startNamedExecution } from '../workflows/executions.ts';
import { assertPublicUrl } from './public-urls.ts';
import { countMetric, METRICS } from '../observability/metrics.ts';

export const WEBHOOK_DELIVERY_ARN_VARIABLE = 'WEBHOOK_DELIVERY_STATE_MACHINE_ARN';
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Local speed-up of the retry schedule (1 on AWS). */
const retryTimeScale = () => Number(process.env.WEBHOOK_RETRY_TIME_SCALE ?? 1) || 1;

const publicView = ({ secret: _secret, organization_id: _org, ...webhook }: repository.WebhookRecord) => webhook;

export async function createWebhook(orgId: number, request: { url: string; events: string[] }) {
  await assertPublicUrl(request.url, 'Webhook');
  const webhook: repository.WebhookRecord = {
    id: `wh_${randomAlphanumeric(16)}`,
    organization_id: orgId,
    url: request.url,
    events: [...new Set(request.events)],
    secret: `whsec_${Buffer.from(randomAlphanumeric(32)).toString('base64')}`,
    status: 'active',
    disabled_reason: null,
    created_at: new Date().toISOString(),
  };
  await repository.putWebhook(webhook);
  return { ...publicView(webhook), secret: webhook.secret };
}

export async function listWebhooks(orgId: number) {
  return { items: (await repository.listWebhooks(orgId)).map(publicView) };
}

export async function deleteWebhook(orgId: number, webhookId: string): Promise<void> {
  if (!(await repository.deleteWebhook(orgId, webhookId))) throw new NotFoundError('Webhook not found');
}

export async function listDeliveries(orgId: number, webhookId: string, page: PageRequest) {
  if (!(await repository.getWebhook(orgId, webhookId))) throw new NotFoundError('Webhook not found');
  const { items, totalCount } = await repository.listDeliveries(orgId, webhookId, pageOffset(page), page.limit);
  return {
    items: items.map(({ payload: _payload, run: _run, webhook_id: _webhook, ...delivery }) => delivery),
    ...pageInfo(page, totalCount),
  };
}

/** Identifies a delivery across the state machine's steps. */
export interface DeliveryRef {
  organizationId: number;
  webhookId: string;
  createdAt: string;
  messageId: string;
}

/**
 * One event to every active webhook of the organization subscribed to it: a delivery record and a
 * delivery execution each. `eventKey` (stable per event: per run for call.completed) names them,
 * so an event that reaches the bus twice (EventBridge retries, outbox re-sends) creates nothing twice.
 */
export async function fanOutEvent(orgId: number, eventType: string, eventKey: string, payload: unknown, run: RunRef | null): Promise<number> {
  const webhooks = (await repository.listWebhooks(orgId)).filter((webhook) => webhook.status === 'active' && webhook.events.includes(eventType));
  const createdAt = new Date().toISOString();
  const body = JSON.stringify(payload);
  for (const webhook of webhooks) {
    const messageId = `msg_${eventKey}_${webhook.id}`.replace(/[^A-Za-z0-9_-]/g, '');
    await repository.insertDelivery(orgId, {
      message_id: messageId,
      webhook_id: webhook.id,
      event_type: eventType,
      run,
      status: 'pending',
      created_at: createdAt,
      attempts: [],
      next_attempt_at: createdAt,
      payload: body,
    });
    const ref: DeliveryRef = { organizationId: orgId, webhookId: webhook.id, createdAt, messageId };
    await startNamedExecution(WEBHOOK_DELIVERY_ARN_VARIABLE, messageId.slice(0, 80), { delivery: ref, attempt: 1 });
  }
  return webhooks.length;
}

async function send(webhook: repository.WebhookRecord, delivery: repository.DeliveryRecord): Promise<AttemptResult> {
  const now = new Date();
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'voice-agent-platform-webhooks/1.0',
    'webhook-id': delivery.message_id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(webhook.secret).sign(delivery.message_id, now, delivery.payload),
  };
  try {
    await assertPublicUrl(webhook.url, 'Webhook');
    const response = await fetch(webhook.url, { method: 'POST', headers, body: delivery.payload, redirect: 'manual', signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
    await response.arrayBuffer().catch(() => undefined);
    return { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') ?? undefined };
  } catch (error) {
    return { kind: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network_error' };
  }
}

export type AttemptOutcome = { action: 'delivered' | 'failed' | 'disable_endpoint' | 'gone' } | { action: 'retry'; delaySeconds: number };

/** One delivery attempt, signed per Standard Webhooks; the state machine waits and calls again on `retry`. */
export async function attemptDelivery(ref: DeliveryRef, attempt: number): Promise<AttemptOutcome> {
  const [webhook, delivery] = await Promise.all([
    repository.getWebhook(ref.organizationId, ref.webhookId),
    repository.getDelivery(ref.organizationId, { webhook_id: ref.webhookId, created_at: ref.createdAt, message_id: ref.messageId }),
  ]);
  // Deleted webhook or run, or an endpoint disabled meanwhile: nothing more to send.
  if (!delivery) return { action: 'gone' };
  const key = { webhook_id: ref.webhookId, created_at: ref.createdAt, message_id: ref.messageId };
  if (!webhook || webhook.status !== 'active') {
    await repository.recordAttempt(ref.organizationId, key, { attempt, at: new Date().toISOString(), status_code: null, error: 'webhook deleted or disabled', duration_ms: 0 }, 'failed', null);
    return { action: 'failed' };
  }
  const started = Date.now();
  const result = await send(webhook, delivery);
  const decision = decideAfterAttempt(attempt, result, new Date(), Math.random(), retryTimeScale());
  const outcome: AttemptOutcome = decision.action === 'retry' ? { action: 'retry', delaySeconds: Math.max(1, Math.ceil(decision.delaySeconds)) } : decision;
  const nextAttemptAt = outcome.action === 'retry' ? new Date(Date.now() + outcome.delaySeconds * 1000).toISOString() : null;
  const status: repository.DeliveryStatus = outcome.action === 'delivered' ? 'delivered' : outcome.action === 'retry' ? 'pending' : 'failed';
  const recorded = await repository.recordAttempt(
    ref.organizationId,
    key,
    {
      attempt,
      at: new Date(started).toISOString(),
      status_code: result.kind === 'response' ? result.status : null,
      error: result.kind === 'response' ? null : result.kind,
      duration_ms: Date.now() - started,
    },
    status,
    nextAttemptAt,
  );
  if (!recorded) return { action: 'gone' };
  countMetric(outcome.action === 'delivered' ? METRICS.webhookDeliveries : METRICS.webhookDeliveryFailures);
  if (outcome.action === 'disable_endpoint') {
    await repository.disableWebhook(ref.organizationId, ref.webhookId, 'The endpoint answered 410 Gone');
    countMetric(METRICS.webhookEndpointsDisabled);
  }
  return outcome;
}
