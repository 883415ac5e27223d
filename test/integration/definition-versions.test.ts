import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Agent } from '../../shared/schemas/agents.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { connectSession } from '../support/sessions.ts';

/**
 * Definition versions over the local stack: a draft tried in a chat that names it while other
 * chats run the published version, publishing, a publish during a chat that the chat does not
 * see, rolling back, and the 404s and 409 of the version routes.
 */
const api = apiClient();
const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 100 });
let org: TestOrganization;
let agent: Agent;

/** A two-step flow whose every line names its version: what a chat says shows which one ran. */
const flow = (version: string) => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      greeting: `Hello from version ${version}.`,
      prompt: `Answer every question. Say "This is version ${version}."`,
    },
    { id: 'done', type: 'endCall', name: 'Done', closing: `Goodbye from version ${version}.` },
  ],
  edges: [{ source: 'start', target: 'done', condition: 'The caller says "bye"' }],
});

const agentPath = () => `/agents/${agent.public_id}`;

beforeAll(async () => {
  org = await newOrganization('Versions', 10);
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: { name: 'Versioned', workflow_definition: flow('one') },
  });
  expect(created.status, created.text).toBe(201);
  agent = created.body;
});

/** Starts a chat (naming `definitionId` when given) and waits for its greeting. */
async function startChat(definitionId?: number) {
  const created = await api.request<{
    id: number;
    definition_id: number;
    session: { url: string; run_ref: string; token: string };
  }>('POST', `${agentPath()}/conversations`, {
    key: org.key,
    body: { mode: 'chat', ...(definitionId !== undefined && { definition_id: definitionId }) },
  });
  expect(created.status, created.text).toBe(200);
  const session = await connectSession(created.body.session);
  await until(() => expect(session.of('mark').length).toBeGreaterThan(0));
  const say = async (text: string) => {
    const marks = session.of('mark').length;
    session.send({ event: 'message', text });
    await until(() => expect(session.of('mark').length).toBeGreaterThan(marks));
  };
  const texts = () => session.of('text').map((frame) => frame.text);
  return { run: created.body, session, say, texts };
}

async function finish(chat: Awaited<ReturnType<typeof startChat>>) {
  await chat.say('bye');
  expect(await chat.session.closed).toEqual({ code: 1000, reason: 'agent hung up' });
  return until(async () => {
    const response = await api.request('GET', `${agentPath()}/conversations/${chat.run.id}`, { key: org.key });
    expect(response.body.status).toBe('completed');
    return response.body;
  });
}

const saveDraft = async (body: object) => api.request('POST', `${agentPath()}/definitions`, { key: org.key, body });
const publish = async (definitionId: number) =>
  api.request('POST', `${agentPath()}/definitions/${definitionId}/publish`, { key: org.key });

describe('definition versions', () => {
  let first: number;
  let draft: number;

  it('a draft is saved without changing the agent, and listed with the first version', async () => {
    first = agent.current_definition_id;
    const saved = await saveDraft({ workflow_definition: flow('two'), note: 'Version two' });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({
      workflow_id: agent.id,
      status: 'draft',
      note: 'Version two',
      published_at: null,
      workflow_definition: flow('two'),
    });
    draft = saved.body.id;
    expect(draft).toBeGreaterThan(first);

    const stored = await api.request('GET', agentPath(), { key: org.key });
    expect(stored.body.current_definition_id).toBe(first);
    expect(stored.body.workflow_definition).toEqual(flow('one'));

    const list = await api.request('GET', `${agentPath()}/definitions?page=1&limit=10`, { key: org.key });
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 10, total_count: 2, total_pages: 1 });
    expect(list.body.items.map((item: { id: number; status: string }) => [item.id, item.status])).toEqual([
      [draft, 'draft'],
      [first, 'current'],
    ]);
    expect(list.body.items[0]).not.toHaveProperty('workflow_definition');
    const second = await api.request('GET', `${agentPath()}/definitions?page=2&limit=1`, { key: org.key });
    expect(second.body).toMatchObject({ total_count: 2, total_pages: 2 });
    expect(second.body.items.map((item: { id: number }) => item.id)).toEqual([first]);

    const fetched = await api.request('GET', `${agentPath()}/definitions/${draft}`, { key: org.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body.workflow_definition).toEqual(flow('two'));
  });

  it('a draft is validated as the agent definition is: 422s point into the graph, nothing is saved', async () => {
    const broken = flow('three');
    broken.edges[0]!.target = 'nowhere';
    const response = await saveDraft({ workflow_definition: broken });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({
      loc: ['body', 'workflow_definition', 'edges', 0, 'target'],
      msg: 'Value error, no node has the id nowhere',
    });
    const list = await api.request('GET', `${agentPath()}/definitions`, { key: org.key });
    expect(list.body.total_count).toBe(2);
  });

  it('a chat naming the draft runs the draft, while a chat without it runs the published version', async () => {
    const tried = await startChat(draft);
    const plain = await startChat();
    expect(tried.run.definition_id).toBe(draft);
    expect(plain.run.definition_id).toBe(first);
    await tried.say('Who is this?');
    await plain.say('Who is this?');
    expect(tried.texts()).toEqual(['Hello from version two.', 'This is version two.']);
    expect(plain.texts()).toEqual(['Hello from version one.', 'This is version one.']);
    const [triedRun, plainRun] = await Promise.all([finish(tried), finish(plain)]);
    expect(triedRun.definition_id).toBe(draft);
    expect(plainRun.definition_id).toBe(first);
  });

  it('a publish during a chat does not change it; chats started after run the new version', async () => {
    const running = await startChat();
    await running.say('Who is this?');
    const published = await publish(draft);
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ id: draft, status: 'current', published_at: expect.any(String) });
    const stored = await api.request('GET', agentPath(), { key: org.key });
    expect(stored.body).toMatchObject({ current_definition_id: draft, workflow_definition: flow('two') });

    await running.say('And now?');
    const after = await startChat();
    await after.say('Who is this?');
    const [runningRun, afterRun] = await Promise.all([finish(running), finish(after)]);
    expect(running.texts()).toEqual([
      'Hello from version one.',
      'This is version one.',
      'This is version one.',
      'Goodbye from version one.',
    ]);
    expect(runningRun.definition_id).toBe(first);
    expect(after.texts()).toEqual(['Hello from version two.', 'This is version two.', 'Goodbye from version two.']);
    expect(afterRun.definition_id).toBe(draft);
  });

  it('rolls back by publishing the earlier version; publishing the current one changes nothing', async () => {
    const rolledBack = await publish(first);
    expect(rolledBack.status, rolledBack.text).toBe(200);
    expect(rolledBack.body.status).toBe('current');
    const again = await publish(first);
    expect(again.status).toBe(200);
    const stored = await api.request('GET', agentPath(), { key: org.key });
    expect(stored.body).toMatchObject({ current_definition_id: first, workflow_definition: flow('one') });
    const list = await api.request('GET', `${agentPath()}/definitions`, { key: org.key });
    expect(list.body.items.map((item: { id: number; status: string }) => [item.id, item.status])).toEqual([
      [draft, 'published'],
      [first, 'current'],
    ]);
    const chat = await startChat();
    await chat.say('Who is this?');
    expect(chat.texts()).toEqual(['Hello from version one.', 'This is version one.']);
    await finish(chat);
  });

  it('a PATCH of the definition saves and publishes a version in one step', async () => {
    const patched = await api.request('PATCH', agentPath(), {
      key: org.key,
      body: { workflow_definition: flow('four') },
    });
    expect(patched.status, patched.text).toBe(200);
    const version = await api.request('GET', `${agentPath()}/definitions/${patched.body.current_definition_id}`, {
      key: org.key,
    });
    expect(version.body).toMatchObject({
      status: 'current',
      note: null,
      published_at: expect.any(String),
      workflow_definition: flow('four'),
    });
  });

  it('404 for unknown versions and agents, in the routes and in a run naming one', async () => {
    const other = await api.request('POST', '/agents', { key: org.key, body: { name: 'Other' } });
    const foreign = other.body.current_definition_id;
    expect((await api.request('GET', `${agentPath()}/definitions/${foreign}`, { key: org.key })).status).toBe(404);
    expect((await publish(999_999_999)).status).toBe(404);
    const unknownAgent = await api.request('GET', '/agents/agent_00000000000000000000/definitions', { key: org.key });
    expect(unknownAgent.status).toBe(404);
    const run = await api.request('POST', `${agentPath()}/conversations`, {
      key: org.key,
      body: { mode: 'chat', definition_id: foreign },
    });
    expect(run.status).toBe(404);
    expect(run.body).toEqual({ detail: 'Definition not found' });
  });

  it('of two publishes that read the same agent, one wins and the other changes nothing', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const definitions = await import('../../shared/repositories/definitions.ts');
    const read = (await api.request('GET', agentPath(), { key: org.key })).body as Agent;
    const [a, b] = (await Promise.all(
      ['five', 'six'].map(
        async (version) => (await saveDraft({ workflow_definition: flow(version) })).body.id as number,
      ),
    )) as [number, number];
    const [versionA, versionB] = await Promise.all(
      [a, b].map(async (id) => (await definitions.getDefinition(org.organizationId, agent.id, id))!),
    );
    const now = new Date().toISOString();
    expect(await definitions.publishDefinition(org.organizationId, versionA!, read.updated_at, now)).toBe(true);
    expect(await definitions.publishDefinition(org.organizationId, versionB!, read.updated_at, now)).toBe(false);
    const stored = await api.request('GET', agentPath(), { key: org.key });
    expect(stored.body).toMatchObject({ current_definition_id: a, workflow_definition: flow('five') });
    const loser = await api.request('GET', `${agentPath()}/definitions/${b}`, { key: org.key });
    expect(loser.body).toMatchObject({ status: 'draft', published_at: null });
  });

  it("409 for publishing an archived agent's version", async () => {
    const created = await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Archived', workflow_definition: flow('one') },
    });
    const saved = await api.request('POST', `/agents/${created.body.public_id}/definitions`, {
      key: org.key,
      body: { workflow_definition: flow('two') },
    });
    await api.request('POST', `/agents/${created.body.public_id}/archive`, { key: org.key });
    const response = await api.request(
      'POST',
      `/agents/${created.body.public_id}/definitions/${saved.body.id}/publish`,
      {
        key: org.key,
      },
    );
    expect(response.status).toBe(409);
    const stored = await api.request('GET', `/agents/${created.body.public_id}`, { key: org.key });
    expect(stored.body.current_definition_id).toBe(created.body.current_definition_id);
  });
});
