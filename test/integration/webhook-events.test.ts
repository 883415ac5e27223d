import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, webhookReceivers, type ReceivedWebhook } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };
const receivers = webhookReceivers();
const receiver = receivers.start;

/** The services and repositories, on the same table and emulators as the API under test. */
async function stackModules() {
  Object.assign(process.env, inject('stackEnv'));
  return {
    webhooks: await import('../../shared/services/webhooks.ts'),
    repository: await import('../../shared/repositories/webhooks.ts'),
  };
}

/** A finished run's item, for events about it fanned out directly (a delivery is made only while its run exists). */
async function storedRun(orgId: number, agentId: number, runId: number) {
  Object.assign(process.env, inject('stackEnv'));
  const [{ db, tableName }, { keys }, { PutCommand }] = await Promise.all([
    import('../../shared/repositories/table.ts'),
    import('../../shared/repositories/keys.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.run(orgId, agentId, runId), type: 'run', id: runId, status: 'completed' },
    }),
  );
}

beforeAll(async () => {
  org = await newOrganization('Webhook events');
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Eventful' } })).body;
});
afterAll(receivers.closeAll);

/**
 * An organization of the test's own, for tests whose events go through the bus: fan-out reuses an
 * organization's endpoints for SUBSCRIPTIONS_CACHE_MS, so one subscribed just after another test's
 * events would receive from the next window on.
 */
async function freshOrganization(name: string) {
  const own = await newOrganization(name);
  const ownAgent = (await api.request('POST', '/agents', { key: own.key, body: { name } })).body;
  return { org: own, agent: ownAgent as typeof agent };
}

async function subscribe(key: string, url: string, events: string[]) {
  const response = await api.request('POST', '/webhooks', { key, body: { url, events } });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string };
}

const bodyOf = (hook: ReceivedWebhook) =>
  JSON.parse(hook.body) as { type: string; timestamp: string; data: Record<string, unknown> };
const verify = (secret: string, hook: ReceivedWebhook) =>
  new StandardWebhook(secret).verify(hook.body, hook.headers as Record<string, string>);

describe.skipIf(needsLocalStack)('webhook events', () => {
  it('validates events against the catalogue and caps the endpoints of an organization', async () => {
    const unknown = await api.request('POST', '/webhooks', {
      key: org.key,
      body: { url: 'https://example.com/h', events: ['call.completed', 'call.exploded'] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', 'events', 1]]);

    const crowded = await newOrganization('Many webhooks');
    const sink = await receiver();
    const created = [];
    for (let index = 0; index < 20; index += 1)
      created.push(await subscribe(crowded.key, `${sink.url}/${index}`, ['call.completed']));
    const over = await api.request('POST', '/webhooks', { key: crowded.key, body: { url: sink.url } });
    expect(over.status).toBe(409);
    expect(over.body.detail).toContain('at most 20');
    const page = await api.request('GET', '/webhooks?limit=5&page=4', { key: crowded.key });
    expect(page.body).toMatchObject({ page: 4, limit: 5, total_count: 20, total_pages: 4 });
    expect(page.body.items).toHaveLength(5);
    // A deleted endpoint frees its place.
    expect((await api.request('DELETE', `/webhooks/${created[0]!.id}`, { key: crowded.key })).status).toBe(204);
    expect((await api.request('POST', '/webhooks', { key: crowded.key, body: { url: sink.url } })).status).toBe(201);
  });

  it('changes the events an endpoint subscribes to', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const changed = await api.request('PATCH', `/webhooks/${webhook.id}`, {
      key: org.key,
      body: { events: ['campaign.paused', 'call.failed', 'call.failed'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: webhook.id, events: ['campaign.paused', 'call.failed'] });
    expect(changed.body).not.toHaveProperty('secret');
    expect(
      (await api.request('PATCH', `/webhooks/${webhook.id}`, { key: org.key, body: { events: ['call.exploded'] } }))
        .status,
    ).toBe(422);
    expect((await api.request('PATCH', `/webhooks/${webhook.id}`, { key: org.key, body: { events: [] } })).status).toBe(
      422,
    );
    const stranger = await newOrganization('Webhook patch stranger');
    expect(
      (
        await api.request('PATCH', `/webhooks/${webhook.id}`, {
          key: stranger.key,
          body: { events: ['call.completed'] },
        })
      ).status,
    ).toBe(404);
  });

  it('stores the signing secret encrypted', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const { repository } = await stackModules();
    const stored = (await repository.getWebhook(org.organizationId, webhook.id))!;
    expect(stored.secret_ciphertext).toMatch(/^local:/);
    expect(JSON.stringify(stored)).not.toContain(webhook.secret.slice('whsec_'.length));
    expect((await api.request('GET', '/webhooks', { key: org.key })).text).not.toContain('ciphertext');
  });

  it('sends a signed sample on test, of the event asked for', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['campaign.paused', 'call.completed']);
    const first = await api.request('POST', `/webhooks/${webhook.id}/test`, { key: org.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      event_type: 'campaign.paused',
      delivered: true,
      status_code: 204,
      error: null,
      message_id: expect.stringMatching(/^msg_test_/),
    });
    const chosen = await api.request('POST', `/webhooks/${webhook.id}/test`, {
      key: org.key,
      body: { event_type: 'call.failed' },
    });
    expect(chosen.body.event_type).toBe('call.failed');
    expect(sink.received.map((hook) => bodyOf(hook).type)).toEqual(['campaign.paused', 'call.failed']);
    for (const hook of sink.received)
      expect(verify(webhook.secret, hook)).toMatchObject({ data: { organization_id: org.organizationId } });
    expect(sink.received[0]!.headers['webhook-id']).toBe(first.body.message_id);

    const failing = await receiver(() => ({ status: 500 }));
    const broken = await subscribe(org.key, failing.url, ['call.completed']);
    expect((await api.request('POST', `/webhooks/${broken.id}/test`, { key: org.key })).body).toMatchObject({
      delivered: false,
      status_code: 500,
    });
    expect(
      (await api.request('POST', `/webhooks/${broken.id}/test`, { key: org.key, body: { event_type: 'call.nope' } }))
        .status,
    ).toBe(422);
    expect((await api.request('POST', '/webhooks/wh_0000000000000000/test', { key: org.key })).status).toBe(404);
  });

  it('rotates the secret: both signatures during the overlap, then only the new one', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const rotated = await api.request('POST', `/webhooks/${webhook.id}/rotate-secret`, {
      key: org.key,
      body: { overlap_seconds: 3600 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3500_000);

    await api.request('POST', `/webhooks/${webhook.id}/test`, { key: org.key });
    const during = sink.received.at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(webhook.secret, during)).toBeTruthy();
    expect(verify(rotated.body.secret, during)).toBeTruthy();

    const again = await api.request('POST', `/webhooks/${webhook.id}/rotate-secret`, {
      key: org.key,
      body: { overlap_seconds: 0 },
    });
    await api.request('POST', `/webhooks/${webhook.id}/test`, { key: org.key });
    const after = sink.received.at(-1)!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(again.body.secret, after)).toBeTruthy();
    expect(() => verify(rotated.body.secret, after)).toThrow();
    expect(
      (
        await api.request('POST', `/webhooks/${webhook.id}/rotate-secret`, {
          key: org.key,
          body: { overlap_seconds: 700_000 },
        })
      ).status,
    ).toBe(422);
  });

  it('redelivers a delivered event with the same webhook-id', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(7) },
    });
    const delivered = await eventually(async () => {
      const page = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
      return page.body.items[0]?.status === 'delivered' ? page.body.items[0] : undefined;
    });
    const retried = await api.request('POST', `/webhooks/${webhook.id}/deliveries/${delivered.message_id}/retry`, {
      key: org.key,
    });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ message_id: delivered.message_id, status: 'pending' });
    await eventually(() => (sink.received.length === 2 ? true : undefined));
    expect(sink.received.map((hook) => hook.headers['webhook-id'])).toEqual([
      delivered.message_id,
      delivered.message_id,
    ]);
    expect(sink.received[1]!.body).toBe(sink.received[0]!.body);
    const after = await eventually(async () => {
      const page = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
      return page.body.items[0]?.status === 'delivered' ? page.body : undefined;
    });
    expect(after.total_count).toBe(1);
    expect(after.items[0].attempts).toHaveLength(2);
    expect(
      (await api.request('POST', `/webhooks/${webhook.id}/deliveries/msg_unknown/retry`, { key: org.key })).status,
    ).toBe(404);
  });

  it('creates one delivery per event and endpoint when the same event is fanned out twice', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const { webhooks } = await stackModules();
    const event = {
      type: 'call.completed',
      timestamp: new Date().toISOString(),
      data: { organization_id: org.organizationId, workflow_run_id: 999_001 },
    };
    const run = { organizationId: org.organizationId, agentId: agent.id, runId: 999_001 };
    await storedRun(org.organizationId, agent.id, 999_001);
    await webhooks.fanOutEvent(org.organizationId, 'call.completed', `${org.organizationId}-999001`, event, run);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await webhooks.fanOutEvent(org.organizationId, 'call.completed', `${org.organizationId}-999001`, event, run);
    const page = await eventually(async () => {
      const deliveries = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
      return deliveries.body.items[0]?.status === 'delivered' ? deliveries.body : undefined;
    });
    expect(page.total_count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.received).toHaveLength(1);
  });

  it('keeps and sends nothing for an event about a run deleted before its fan-out', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const { webhooks } = await stackModules();
    const event = {
      type: 'call.completed',
      timestamp: new Date().toISOString(),
      data: { organization_id: org.organizationId, workflow_run_id: 999_002, initial_context: { name: 'Anna' } },
    };
    const run = { organizationId: org.organizationId, agentId: agent.id, runId: 999_002 };
    expect(
      await webhooks.fanOutEvent(org.organizationId, 'call.completed', `${org.organizationId}-999002`, event, run),
    ).toBe(0);
    const deliveries = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
    expect(deliveries.body.total_count).toBe(0);
  });

  it('fans out to an endpoint subscribed since the last read once SUBSCRIPTIONS_CACHE_MS has passed', async () => {
    const { org } = await freshOrganization('Subscription cache');
    const sink = await receiver();
    const { webhooks } = await stackModules();
    const event = (runId: number) => ({
      type: 'call.completed',
      timestamp: new Date().toISOString(),
      data: { organization_id: org.organizationId, workflow_run_id: runId },
    });
    const fanOut = (runId: number) =>
      webhooks.fanOutEvent(org.organizationId, 'call.completed', `${org.organizationId}-${runId}`, event(runId), null);
    expect(await fanOut(1)).toBe(0);
    await subscribe(org.key, sink.url, ['call.completed']);
    // The endpoints read for the first event serve the next ones for a few seconds: one read, not one per event.
    expect(await fanOut(2)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, webhooks.SUBSCRIPTIONS_CACHE_MS));
    expect(await fanOut(3)).toBe(1);
    const hook = await eventually(() => sink.received[0]);
    expect(bodyOf(hook).data.workflow_run_id).toBe(3);
  });

  it('resumes pending deliveries after a restart (their executions are gone)', async () => {
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['call.completed']);
    const { webhooks, repository } = await stackModules();
    // What a stack stopped between the fan-out and the attempt leaves: pending records, no execution.
    const createdAt = new Date().toISOString();
    const messages = ['msg_resume_a', 'msg_resume_b'];
    for (const messageId of messages) {
      await repository.insertDelivery(org.organizationId, {
        message_id: messageId,
        webhook_id: webhook.id,
        event_type: 'call.completed',
        run: null,
        status: 'pending',
        created_at: createdAt,
        attempts: [],
        next_attempt_at: createdAt,
        payload: JSON.stringify({
          type: 'call.completed',
          timestamp: createdAt,
          data: { organization_id: org.organizationId },
        }),
      });
    }
    expect(await webhooks.resumePendingDeliveries()).toBeGreaterThanOrEqual(2);
    await eventually(() => (sink.received.length === 2 ? true : undefined));
    expect(sink.received.map((hook) => hook.headers['webhook-id']).sort()).toEqual(messages);
    const page = await eventually(async () => {
      const deliveries = await api.request('GET', `/webhooks/${webhook.id}/deliveries`, { key: org.key });
      return deliveries.body.items.every((item: { status: string }) => item.status === 'delivered')
        ? deliveries.body
        : undefined;
    });
    expect(page.total_count).toBe(2);
    // Delivered ones leave the pending index: nothing is sent again.
    const pendingNow = await repository.listPendingDeliveries(10_000);
    expect(pendingNow.filter((key) => key.webhook_id === webhook.id)).toEqual([]);
  });

  it('sends call.started when a call is answered, each event only to its subscribers', async () => {
    const { org, agent } = await freshOrganization('Started events');
    const started = await receiver();
    const completed = await receiver();
    await subscribe(org.key, started.url, ['call.started']);
    await subscribe(org.key, completed.url, ['call.completed']);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(1, 2) },
    });
    const hook = await eventually(() => started.received[0], 20_000);
    expect(bodyOf(hook)).toMatchObject({
      type: 'call.started',
      data: {
        organization_id: org.organizationId,
        workflow_id: agent.id,
        workflow_run_id: placed.body.workflow_run_id,
        answered_at: expect.any(String),
      },
    });
    expect(
      completed.received
        .filter((received) => bodyOf(received).data.workflow_run_id === placed.body.workflow_run_id)
        .map((received) => bodyOf(received).type),
    ).not.toContain('call.started');
  });

  it('derives call.failed from a failed call.completed on the bus', async () => {
    const { org, agent } = await freshOrganization('Derived events');
    const failed = await receiver();
    await subscribe(org.key, failed.url, ['call.failed']);
    const env = inject('stackEnv');
    const bus = new EventBridgeClient({
      endpoint: env.AWS_ENDPOINT_URL_EVENTBRIDGE,
      region: env.AWS_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const data = {
      organization_id: org.organizationId,
      workflow_id: agent.id,
      workflow_run_id: 999_002,
      workflow_run_name: 'Call',
      status: 'failed',
      phone_number: '+48601234561',
      created_at: new Date().toISOString(),
      ended_at: new Date().toISOString(),
      duration_seconds: 0,
      initial_context: {},
      gathered_context: {},
      call_disposition: null,
      recording_url: null,
      transcript_url: null,
      cost: null,
      campaign_id: null,
    };
    await storedRun(org.organizationId, agent.id, 999_002);
    const detail = { type: 'call.completed', timestamp: data.ended_at, data };
    const put = () =>
      bus.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: env.EVENT_BUS_NAME,
              Source: 'voice-agent-platform.calls',
              DetailType: 'call.completed',
              Detail: JSON.stringify(detail),
            },
          ],
        }),
      );
    await put();
    await put();
    bus.destroy();
    const hook = await eventually(() => failed.received[0]);
    expect(bodyOf(hook)).toMatchObject({ type: 'call.failed', data: { workflow_run_id: 999_002, status: 'failed' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(failed.received).toHaveLength(1);
  });

  it('sends campaign.paused and campaign.completed', async () => {
    const { org, agent } = await freshOrganization('Campaign events');
    const sink = await receiver();
    const webhook = await subscribe(org.key, sink.url, ['campaign.paused', 'campaign.completed']);
    const create = (name: string, phone_number: string) =>
      api.request('POST', '/campaigns', {
        key: org.key,
        body: { name, workflow_id: agent.id, source_type: 'manual', manual_contacts: [{ phone_number }] },
      });
    // Every contact already final (an invalid number): the campaign completes on its first step.
    const finished = (await create('Finishes at once', '12345')).body;
    await api.request('POST', `/campaigns/${finished.id}/start`, { key: org.key });
    const paused = (await create('Paused', daytimeNumber(7, 3))).body;
    await api.request('POST', `/campaigns/${paused.id}/start`, { key: org.key });
    expect((await api.request('POST', `/campaigns/${paused.id}/pause`, { key: org.key })).body.state).toBe('paused');

    await eventually(() => (sink.received.length >= 2 ? true : undefined), 20_000);
    const events = sink.received.map(
      (hook) => verify(webhook.secret, hook) as { type: string; data: { campaign_id: number; state: string } },
    );
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'campaign.completed',
          data: expect.objectContaining({ campaign_id: finished.id, state: 'completed', processed_rows: 1 }),
        }),
        expect.objectContaining({
          type: 'campaign.paused',
          data: expect.objectContaining({ campaign_id: paused.id, state: 'paused' }),
        }),
      ]),
    );
  });
});
