import { Webhook as StandardWebhook } from 'standardwebhooks';
import { reuseFor } from '../caching/reuse-for.ts';
import { decryptSecret, encryptSecret } from '../crypto/secret-box.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, pageOfItems, type PageRequest } from '../domain/pagination.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { decideAfterAttempt, type AttemptResult } from '../domain/webhook-retry.ts';
import * as repository from '../repositories/webhooks.ts';
import { createGuardedFetch, OutboundRequestError } from '../net/guarded-fetch.ts';
import type { WebhookEventType } from '../schemas/webhook-events.ts';
import { startNamedExecution } from '../workflows/executions.ts';
import { assertPublicUrl } from './public-urls.ts';
import { MAX_WEBHOOKS_PER_ORGANIZATION } from '../domain/webhook-limits.ts';
import { countMetric, METRICS } from '../observability/metrics.ts';
import { positiveNumberSetting } from '../config/settings.ts';

export const WEBHOOK_DELIVERY_ARN_VARIABLE = 'WEBHOOK_DELIVERY_STATE_MACHINE_ARN';
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Deliveries go through the SSRF guard; a redirect is an answer (not followed), the body is read and dropped. */
const deliveryFetch = createGuardedFetch({ timeoutMs: ATTEMPT_TIMEOUT_MS, maxResponseBytes: 64 * 1024 });

/** Local speed-up of the retry schedule (1 on AWS). */
const retryTimeScale = () => positiveNumberSetting('WEBHOOK_RETRY_TIME_SCALE', 1);

const publicView = ({
  secret_ciphertext: _secret,
  previous_secret_ciphertext: _previous,
  organization_id: _org,
  ...webhook
}: repository.WebhookRecord) => ({
  ...webhook,
  previous_secret_expires_at: webhook.previous_secret_expires_at ?? null,
});

const newSecret = () => `whsec_${Buffer.from(randomAlphanumeric(32)).toString('base64')}`;

/** Encryption context: a stored secret cannot be moved to another organization or endpoint. */
const secretContext = (orgId: number, webhookId: string) => ({ organizationId: String(orgId), webhookId });

/** The secrets that sign right now: the current one, and the previous one during a rotation's overlap. */
async function signingSecrets(webhook: repository.WebhookRecord, now: Date): Promise<string[]> {
  const context = secretContext(webhook.organization_id, webhook.id);
  const secrets = [await decryptSecret(webhook.secret_ciphertext, context)];
  if (
    webhook.previous_secret_ciphertext &&
    webhook.previous_secret_expires_at &&
    Date.parse(webhook.previous_secret_expires_at) > now.getTime()
  ) {
    secrets.push(await decryptSecret(webhook.previous_secret_ciphertext, context));
  }
  return secrets;
}

/** `webhook-signature`: one `v1,<signature>` per secret, space-separated, as Standard Webhooks allows. */
export function signatureHeader(secrets: readonly string[], messageId: string, at: Date, body: string): string {
  return secrets.map((secret) => new StandardWebhook(secret).sign(messageId, at, body)).join(' ');
}

export async function createWebhook(orgId: number, request: { url: string; events: string[] }) {
  await assertPublicUrl(request.url, 'Webhook');
  const id = `wh_${randomAlphanumeric(16)}`;
  const secret = newSecret();
  const webhook: repository.WebhookRecord = {
    id,
    organization_id: orgId,
    url: request.url,
    events: [...new Set(request.events)],
    secret_ciphertext: await encryptSecret(secret, secretContext(orgId, id)),
    previous_secret_ciphertext: null,
    previous_secret_expires_at: null,
    status: 'active',
    disabled_reason: null,
    created_at: new Date().toISOString(),
  };
  if (!(await repository.insertWebhook(webhook, MAX_WEBHOOKS_PER_ORGANIZATION))) {
    throw new ConflictError(
      `An organization has at most ${MAX_WEBHOOKS_PER_ORGANIZATION} webhook endpoints; delete one first`,
    );
  }
  return { ...publicView(webhook), secret };
}

/** Changes what an endpoint subscribes to; events already fanned out are still delivered. */
export async function updateWebhook(orgId: number, webhookId: string, changes: { events?: string[] }) {
  const updated = changes.events
    ? await repository.updateEvents(orgId, webhookId, [...new Set(changes.events)])
    : await repository.getWebhook(orgId, webhookId);
  if (!updated) throw new NotFoundError('Webhook not found');
  return publicView(updated);
}

async function existingWebhook(orgId: number, webhookId: string): Promise<repository.WebhookRecord> {
  const webhook = await repository.getWebhook(orgId, webhookId);
  if (!webhook) throw new NotFoundError('Webhook not found');
  return webhook;
}

/**
 * A new signing secret, shown once. For `overlapSeconds` deliveries carry signatures with both the
 * new and the previous secret, so receivers can switch without losing an event.
 */
export async function rotateSecret(orgId: number, webhookId: string, overlapSeconds: number, now = new Date()) {
  const webhook = await existingWebhook(orgId, webhookId);
  const secret = newSecret();
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  const rotated = await repository.rotateSecret(
    orgId,
    webhookId,
    webhook.secret_ciphertext,
    await encryptSecret(secret, secretContext(orgId, webhookId)),
    expiresAt,
  );
  if (!rotated) throw new ConflictError('The secret was rotated or the webhook deleted meanwhile; try again');
  return { ...publicView(rotated), secret };
}

/**
 * Sends a signed sample of `eventType` (by default the first event the endpoint subscribes to) at
 * once, and reports the endpoint's answer. Nothing is recorded or retried.
 */
export async function sendTestEvent(orgId: number, webhookId: string, eventType?: WebhookEventType) {
  const webhook = await existingWebhook(orgId, webhookId);
  // The event schemas (zod) load here: fan-out and delivery, which share this module, never need them.
  const { sampleEvent, WEBHOOK_EVENT_TYPES } = await import('../schemas/webhook-events.ts');
  const type =
    eventType ??
    ((webhook.events.find((event) => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) ??
      'call.completed') as WebhookEventType);
  const messageId = `msg_test_${randomAlphanumeric(20)}`;
  const started = Date.now();
  const result = await send(webhook, messageId, JSON.stringify(sampleEvent(type, orgId)));
  return {
    message_id: messageId,
    event_type: type,
    delivered: result.kind === 'response' && result.status >= 200 && result.status < 300,
    status_code: result.kind === 'response' ? result.status : null,
    error: result.kind === 'response' ? null : result.kind,
    duration_ms: Date.now() - started,
  };
}

/** Webhooks are capped per organization, so one query reads them all. */
export async function listWebhooks(orgId: number, page: PageRequest) {
  return pageOfItems((await repository.listWebhooks(orgId)).map(publicView), page);
}

export async function deleteWebhook(orgId: number, webhookId: string): Promise<void> {
  if (!(await repository.deleteWebhook(orgId, webhookId))) throw new NotFoundError('Webhook not found');
}

const deliveryView = ({ payload: _payload, run: _run, webhook_id: _webhook, ...delivery }: repository.DeliveryRecord) =>
  delivery;

export async function listDeliveries(orgId: number, webhookId: string, page: PageRequest) {
  await existingWebhook(orgId, webhookId);
  const { items, totalCount } = await repository.listDeliveries(orgId, webhookId, pageOffset(page), page.limit);
  return { items: items.map(deliveryView), ...pageInfo(page, totalCount) };
}

/**
 * Sends a delivered or failed event again, with the same `webhook-id` and body (receivers dedupe
 * on it), starting at once and following the retry schedule from where it stopped.
 */
export async function retryDelivery(orgId: number, webhookId: string, messageId: string) {
  const webhook = await existingWebhook(orgId, webhookId);
  if (webhook.status !== 'active')
    throw new ConflictError('The webhook is disabled; create a new one to receive events again');
  const key = await repository.findDeliveryKey(orgId, webhookId, messageId);
  const delivery = key && (await repository.getDelivery(orgId, key));
  if (!key || !delivery) throw new NotFoundError('Delivery not found');
  const now = new Date().toISOString();
  if (!(await repository.reopenDelivery(orgId, key, now)))
    throw new ConflictError('The delivery is still pending; it is retried on its schedule');
  await startDelivery(orgId, key, delivery.attempts.length + 1);
  // The delivery as the retry left it: reading it back could already show the new attempt's result.
  return deliveryView({ ...delivery, status: 'pending', next_attempt_at: now });
}

/** One delivery execution per (delivery, attempt number): a repeated start runs nothing twice. */
async function startDelivery(
  orgId: number,
  key: Pick<repository.DeliveryRecord, 'webhook_id' | 'created_at' | 'message_id'>,
  attempt: number,
): Promise<void> {
  const ref: DeliveryRef = {
    organizationId: orgId,
    webhookId: key.webhook_id,
    createdAt: key.created_at,
    messageId: key.message_id,
  };
  const name = attempt === 1 ? key.message_id : `${key.message_id}-a${attempt}`;
  await startNamedExecution(WEBHOOK_DELIVERY_ARN_VARIABLE, name.slice(-80), { delivery: ref, attempt });
}

/**
 * Starts again the deliveries left pending by a stopped local stack (their executions lived in
 * that process); each continues with its next attempt. On AWS executions are durable.
 */
export async function resumePendingDeliveries(): Promise<number> {
  const pending = await repository.listPendingDeliveries(10_000);
  for (const key of pending) {
    const delivery = await repository.getDelivery(key.organization_id, key);
    if (delivery) await startDelivery(key.organization_id, key, delivery.attempts.length + 1);
  }
  return pending.length;
}

/** Identifies a delivery across the state machine's steps. */
export interface DeliveryRef {
  organizationId: number;
  webhookId: string;
  createdAt: string;
  messageId: string;
}

/**
 * How long fan-out reuses an organization's endpoints instead of reading them per event: a
 * webhook created, changed or deleted takes effect on events within this time (a delivery still
 * re-reads its endpoint, so a deleted or disabled one is never sent to).
 */
export const SUBSCRIPTIONS_CACHE_MS = 5_000;
const subscriptionsOf = reuseFor(SUBSCRIPTIONS_CACHE_MS, (orgId: number) => repository.listWebhooks(orgId));

/**
 * One event to every active webhook of the organization subscribed to it: a delivery record and a
 * delivery execution each. `eventKey` (stable per event: per run for call.completed) names them,
 * so an event that reaches the bus twice (EventBridge retries, outbox re-sends) creates one
 * delivery per endpoint: the second fan-out finds it and only makes sure its execution runs.
 */
export async function fanOutEvent(
  orgId: number,
  eventType: string,
  eventKey: string,
  payload: unknown,
  run: RunRef | null,
): Promise<number> {
  const webhooks = (await subscriptionsOf(orgId)).filter(
    (webhook) => webhook.status === 'active' && webhook.events.includes(eventType),
  );
  const now = new Date().toISOString();
  const body = JSON.stringify(payload);
  let started = 0;
  for (const webhook of webhooks) {
    const messageId = `msg_${eventKey}_${webhook.id}`.replace(/[^A-Za-z0-9_-]/g, '');
    const inserted = await repository.insertDelivery(orgId, {
      message_id: messageId,
      webhook_id: webhook.id,
      event_type: eventType,
      run,
      status: 'pending',
      created_at: now,
      attempts: [],
      next_attempt_at: now,
      payload: body,
    });
    // The run was deleted after its event was published: nothing of it is kept or sent.
    if (inserted === 'run_deleted') break;
    await startDelivery(orgId, { webhook_id: webhook.id, created_at: inserted.createdAt, message_id: messageId }, 1);
    started += 1;
  }
  return started;
}

async function send(webhook: repository.WebhookRecord, messageId: string, payload: string): Promise<AttemptResult> {
  const now = new Date();
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'voice-agent-platform-webhooks/1.0',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatureHeader(await signingSecrets(webhook, now), messageId, now, payload),
  };
  try {
    const response = await deliveryFetch(webhook.url, { method: 'POST', headers, body: payload, redirect: 'manual' });
    await response.arrayBuffer().catch(() => undefined);
    return { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') ?? undefined };
  } catch (error) {
    return { kind: error instanceof OutboundRequestError && error.reason === 'timeout' ? 'timeout' : 'network_error' };
  }
}

export type AttemptOutcome =
  { action: 'delivered' | 'failed' | 'disable_endpoint' | 'gone' } | { action: 'retry'; delaySeconds: number };

/** One delivery attempt, signed per Standard Webhooks; the state machine waits and calls again on `retry`. */
export async function attemptDelivery(ref: DeliveryRef, attempt: number): Promise<AttemptOutcome> {
  const [webhook, delivery] = await Promise.all([
    repository.getWebhook(ref.organizationId, ref.webhookId),
    repository.getDelivery(ref.organizationId, {
      webhook_id: ref.webhookId,
      created_at: ref.createdAt,
      message_id: ref.messageId,
    }),
  ]);
  // Deleted webhook or run, or an endpoint disabled meanwhile: nothing more to send.
  if (!delivery) return { action: 'gone' };
  const key = { webhook_id: ref.webhookId, created_at: ref.createdAt, message_id: ref.messageId };
  if (!webhook || webhook.status !== 'active') {
    await repository.recordAttempt(
      ref.organizationId,
      key,
      {
        attempt,
        at: new Date().toISOString(),
        status_code: null,
        error: 'webhook deleted or disabled',
        duration_ms: 0,
      },
      'failed',
      null,
    );
    return { action: 'failed' };
  }
  const started = Date.now();
  const result = await send(webhook, delivery.message_id, delivery.payload);
  const decision = decideAfterAttempt(attempt, result, new Date(), Math.random(), retryTimeScale());
  const outcome: AttemptOutcome =
    decision.action === 'retry'
      ? { action: 'retry', delaySeconds: Math.max(1, Math.ceil(decision.delaySeconds)) }
      : decision;
  const nextAttemptAt =
    outcome.action === 'retry' ? new Date(Date.now() + outcome.delaySeconds * 1000).toISOString() : null;
  const status: repository.DeliveryStatus =
    outcome.action === 'delivered' ? 'delivered' : outcome.action === 'retry' ? 'pending' : 'failed';
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
