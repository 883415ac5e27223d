import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Conversations');
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Chat bot', template_context_variables: { lang: 'en', tone: 'warm' } },
    })
  ).body;
});

describe('conversations', () => {
  it('creates a record for a browser or chat session, merging initial_context over the agent defaults, without dialing', async () => {
    const response = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
      key: org.key,
      body: { mode: 'chat', name: 'Support chat', initial_context: { tone: 'formal', user: 'u-1' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: expect.any(Number),
      workflow_id: agent.id,
      name: 'Support chat',
      mode: 'chat',
      created_at: expect.any(String),
      definition_id: expect.any(Number),
      initial_context: { lang: 'en', tone: 'formal', user: 'u-1' },
      // How the browser connects the chat (browser-sessions.test.ts).
      session: {
        url: expect.stringMatching(/\/sessions$/),
        run_ref: `${org.organizationId}.${agent.id}.${response.body.id}`,
        token: expect.any(String),
        expires_at: expect.any(String),
      },
    });
    const run = await api.request('GET', `/agents/${agent.id}/conversations/${response.body.id}`, { key: org.key });
    expect(run.body).toMatchObject({
      status: 'created',
      phone_number: null,
      duration_seconds: null,
      logs: [],
      sms: [],
    });
  });

  it('validates the mode with FastAPI 422s', async () => {
    const response = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
      key: org.key,
      body: { mode: 'fax' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ type: 'literal_error', loc: ['body', 'mode'] });
  });

  it('lists runs newest first, paginated, with contexts and duration but no links, logs or SMS', async () => {
    const own = await newOrganization('Listing');
    const { body: listed } = await api.request('POST', '/agents', { key: own.key, body: { name: 'Lister' } });
    for (const mode of ['webrtc', 'smallwebrtc', 'chat']) {
      await api.request('POST', `/agents/${listed.public_id}/conversations`, { key: own.key, body: { mode } });
    }
    const page = await api.request('GET', `/agents/${listed.public_id}/conversations?limit=2`, { key: own.key });
    expect(page.body).toMatchObject({ page: 1, limit: 2, total_count: 3, total_pages: 2 });
    expect(page.body.items.map((item: { mode: string }) => item.mode)).toEqual(['chat', 'smallwebrtc']);
    for (const item of page.body.items) {
      expect(item).toHaveProperty('initial_context');
      expect(item).toHaveProperty('gathered_context');
      expect(item).toHaveProperty('duration_seconds');
      expect(item).not.toHaveProperty('logs');
      expect(item).not.toHaveProperty('recording_download_url');
    }
    const bad = await api.request('GET', `/agents/${listed.public_id}/conversations?limit=0`, { key: own.key });
    expect(bad.status).toBe(422);
    expect(
      (await api.request('GET', `/agents/${listed.public_id}/conversations/abc`, { key: own.key })).body.detail[0].loc,
    ).toEqual(['path', 'conversation_id']);
  });

  it('narrows the list by status, creation time and a text in the name or number, counting only the matches', async () => {
    const own = await newOrganization('Filtering');
    const { body: filtered } = await api.request('POST', '/agents', { key: own.key, body: { name: 'Filtered' } });
    for (const name of ['Support chat', 'Sales chat']) {
      await api.request('POST', `/agents/${filtered.public_id}/conversations`, {
        key: own.key,
        body: { mode: 'chat', name },
      });
    }
    const called = daytimeNumber(7);
    const placed = await api.request('POST', `/agents/${filtered.public_id}/calls`, {
      key: own.key,
      body: { phone_number: called },
    });
    await eventually(async () => {
      const run = await api.request('GET', `/agents/${filtered.id}/conversations/${placed.body.workflow_run_id}`, {
        key: own.key,
      });
      return run.body.status === 'busy' || undefined;
    });
    const list = async (query: string) =>
      (await api.request('GET', `/agents/${filtered.public_id}/conversations?${query}`, { key: own.key })).body;

    expect((await list('status=busy')).items.map((item: { id: number }) => item.id)).toEqual([
      placed.body.workflow_run_id,
    ]);
    expect(await list('status=created&limit=1')).toMatchObject({ total_count: 2, total_pages: 2 });
    expect((await list('search=Sales')).items.map((item: { name: string }) => item.name)).toEqual(['Sales chat']);
    expect((await list(`search=${encodeURIComponent(called.slice(-6))}`)).total_count).toBe(1);
    const hourAhead = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString().replace('Z', '+00:00'));
    expect(await list(`created_from=${hourAhead}`)).toMatchObject({ total_count: 0 });
    expect((await list(`created_to=${hourAhead}&status=created`)).total_count).toBe(2);
    expect((await list('disposition=interested')).total_count).toBe(0);
    const bad = await api.request('GET', `/agents/${filtered.public_id}/conversations?status=ringing`, {
      key: own.key,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'status']);
  });

  it('validates expires_in of the recording link (60 to 86400)', async () => {
    for (const value of ['59', '86401', 'soon']) {
      const response = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/1/recording?expires_in=${value}`,
        { key: org.key },
      );
      expect(response.status, value).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['query', 'expires_in']);
    }
  });
});

describe.skipIf(needsLocalStack)('API triggers', () => {
  it('creates a trigger for an agent and places calls through it with the same rules', async () => {
    const created = await api.request('POST', '/triggers', {
      key: org.key,
      body: { workflow_id: agent.id, name: 'CRM' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^trg_/), workflow_id: agent.id, name: 'CRM' });

    const placed = await api.request('POST', `/triggers/${created.body.id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(7) },
    });
    expect(placed.status).toBe(200);
    const run = await eventually(async () => {
      const fetched = await api.request('GET', `/agents/${agent.id}/conversations/${placed.body.workflow_run_id}`, {
        key: org.key,
      });
      return fetched.body.status === 'busy' ? fetched.body : undefined;
    });
    expect(run.workflow_id).toBe(agent.id);

    await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: daytimeNumber(6) } });
    expect(
      (
        await api.request('POST', `/triggers/${created.body.id}/calls`, {
          key: org.key,
          body: { phone_number: daytimeNumber(6) },
        })
      ).status,
    ).toBe(403);

    expect((await api.request('GET', '/triggers', { key: org.key })).body.total_count).toBe(1);
    const stranger = await newOrganization('Trigger stranger');
    expect(
      (
        await api.request('POST', `/triggers/${created.body.id}/calls`, {
          key: stranger.key,
          body: { phone_number: daytimeNumber(7) },
        })
      ).status,
    ).toBe(404);
    expect((await api.request('DELETE', `/triggers/${created.body.id}`, { key: org.key })).status).toBe(204);
    expect((await api.request('GET', `/triggers/${created.body.id}`, { key: org.key })).status).toBe(404);
  });

  it('refuses a trigger for an unknown agent (404)', async () => {
    expect((await api.request('POST', '/triggers', { key: org.key, body: { workflow_id: 999999 } })).status).toBe(404);
  });
});
