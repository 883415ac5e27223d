import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };
const receivers: Awaited<ReturnType<typeof startWebhookReceiver>>[] = [];

beforeAll(async () => {
  org = await newOrganization('Webhooks');
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Notifier' } })).body;
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

async function receiver(respond?: Parameters<typeof startWebhookReceiver>[0]) {
  const started = await startWebhookReceiver(respond);
  receivers.push(started);
  return started;
}

async function subscribe(key: string, url: string) {
  const response = await api.request('POST', '/webhooks', { key, body: { url, events: ['call.completed'] } });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string };
}

/** A call to a busy number: completes in well under a second. */
async function completedCall(key: string, agentRef: string) {
  const placed = await api.request('POST', `/agents/${agentRef}/calls`, {
    key,
    body: { phone_number: daytimeNumber(7) },
  });
  expect(placed.status).toBe(200);
  return placed.body.workflow_run_id as number;
}

describe.skipIf(needsLocalStack)('webhooks', () => {
  it('retries a failing endpoint on the schedule, keeping the webhook-id, honouring Retry-After, and lists the attempts', async () => {
    const own = await newOrganization('Retries');
    const { body: ownAgent } = await api.request('POST', '/agents', { key: own.key, body: { name: 'Retry agent' } });
    const flaky = await receiver((index) =>
      index === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : index === 1 ? { status: 500 } : { status: 200 },
    );
    const webhook = await subscribe(own.key, flaky.url);
    await completedCall(own.key, ownAgent.public_id);

    await eventually(() => (flaky.received.length >= 3 ? true : undefined), 20_000);
    const ids = new Set(flaky.received.map((hook) => hook.headers['webhook-id']));
    expect(ids.size).toBe(1);

    const deliveries = await eventually(async () => {
      const page = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: own.key });
      return page.body.items[0]?.status === 'delivered' ? page.body : undefined;
    });
    expect(deliveries.total_count).toBe(1);
    expect(deliveries.items[0].attempts.map((attempt: { status_code: number }) => attempt.status_code)).toEqual([
      503, 500, 200,
    ]);
    expect(deliveries.items[0].next_attempt_at).toBeNull();
    expect(deliveries.items[0]).not.toHaveProperty('payload');
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const own = await newOrganization('Gone');
    const { body: ownAgent } = await api.request('POST', '/agents', { key: own.key, body: { name: 'Gone agent' } });
    const gone = await receiver(() => ({ status: 410 }));
    const webhook = await subscribe(own.key, gone.url);
    await completedCall(own.key, ownAgent.public_id);
    const listed = await eventually(async () => {
      const list = await api.request('GET', '/webhooks', { key: own.key });
      const found = list.body.items.find((item: { id: string }) => item.id === webhook.id);
      return found?.status === 'disabled' ? found : undefined;
    });
    expect(listed.disabled_reason).toContain('410');
    expect(listed).not.toHaveProperty('secret');
    expect(gone.received).toHaveLength(1);
  });

  it('removes the delivery records of a deleted run', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url);
    const runId = await completedCall(org.key, agent.public_id);
    await eventually(async () => {
      const page = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
      return page.body.total_count === 1 ? true : undefined;
    });
    await eventually(async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return run.body.status === 'busy' ? true : undefined;
    });
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(204);
    expect((await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key })).body.total_count).toBe(0);
  });

  it('validates subscriptions and keeps them per organization', async () => {
    const invalid = await api.request('POST', '/webhooks', { key: org.key, body: { url: 'not a url' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(['body', 'url']);
    const badEvent = await api.request('POST', '/webhooks', {
      key: org.key,
      body: { url: 'https://example.com/h', events: ['call.answered'] },
    });
    expect(badEvent.body.detail[0].loc).toEqual(['body', 'events', 0]);

    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url);
    const stranger = await newOrganization('Webhook stranger');
    expect((await api.request('DELETE', `/webhooks/${webhook.id}`, { key: stranger.key })).status).toBe(404);
    expect((await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: stranger.key })).status).toBe(404);
    expect((await api.request('DELETE', `/webhooks/${webhook.id}`, { key: org.key })).status).toBe(204);
  });
});
