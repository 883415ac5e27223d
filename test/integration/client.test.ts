import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceAgentClient, verifyWebhook, WebhookVerificationError } from '../../client/index.ts';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/generate-client.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

const api = apiClient();
const receivers = webhookReceivers();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Typed client');
});
afterAll(receivers.closeAll);

describe('typed client', () => {
  it('is generated from the document the API serves (run `npm run generate:client` after changing the API)', async () => {
    const live = await api.request('GET', '/public-openapi.json');
    expect(await clientTypes(live.body)).toBe(readFileSync(CLIENT_TYPES_FILE, 'utf8'));
  });

  it('creates an agent and places a call, typed end to end', async () => {
    const client = createVoiceAgentClient({ baseUrl: api.baseUrl, apiKey: org.key });
    const agent = await client.POST('/agents', {
      body: { name: 'Typed caller', call_disposition_codes: { confirmed: 'Visit confirmed' } },
    });
    expect(agent.response.status).toBe(201);
    const call = await client.POST('/agents/{agent_id}/calls', {
      params: { path: { agent_id: agent.data!.public_id } },
      body: { phone_number: daytimeNumber(7), initial_context: { name: 'Anna' } },
    });
    expect(call.data).toMatchObject({ status: 'initiated', workflow_run_id: expect.any(Number) });
    const run = await eventually(async () => {
      const fetched = await client.GET('/agents/{agent_id}/conversations/{conversation_id}', {
        params: { path: { agent_id: agent.data!.public_id, conversation_id: call.data!.workflow_run_id } },
      });
      return fetched.data?.status === 'busy' ? fetched.data : undefined;
    });
    expect(run.initial_context).toEqual({ name: 'Anna' });

    const invalid = await client.POST('/agents/{agent_id}/calls', {
      params: { path: { agent_id: agent.data!.public_id } },
      body: { phone_number: 'not a number' },
    });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error).toMatchObject({ detail: [expect.objectContaining({ loc: ['body', 'phone_number'] })] });
    const anonymous = await createVoiceAgentClient({ baseUrl: api.baseUrl, apiKey: 'vap_wrong' }).GET('/agents');
    expect(anonymous.response.status).toBe(401);
  });

  it('verifies webhook deliveries, also during a secret rotation, and refuses tampered ones', async () => {
    const client = createVoiceAgentClient({ baseUrl: api.baseUrl, apiKey: org.key });
    const sink = await receivers.start();
    const { data: webhook } = await client.POST('/webhooks', { body: { url: sink.url, events: ['call.completed'] } });
    await client.POST('/webhooks/{webhook_id}/test', {
      params: { path: { webhook_id: webhook!.id } },
      body: { event_type: 'call.completed' },
    });
    const event = verifyWebhook(
      sink.received[0]!.body,
      sink.received[0]!.headers as Record<string, string>,
      webhook!.secret,
    );
    expect(event.type).toBe('call.completed');
    if (event.type === 'call.completed') expect(event.data.organization_id).toBe(org.organizationId);

    const { data: rotated } = await client.POST('/webhooks/{webhook_id}/rotate-secret', {
      params: { path: { webhook_id: webhook!.id } },
      body: { overlap_seconds: 600 },
    });
    await client.POST('/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhook!.id } } });
    const during = sink.received[1]!;
    for (const secret of [webhook!.secret, rotated!.secret])
      expect(verifyWebhook(during.body, during.headers as Record<string, string>, secret).type).toBe('call.completed');
    expect(() =>
      verifyWebhook(
        during.body.replace('"call.completed"', '"call.failed"'),
        during.headers as Record<string, string>,
        rotated!.secret,
      ),
    ).toThrow(WebhookVerificationError);
  });
});
