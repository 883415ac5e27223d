import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Agents test');
});

const createAgent = async (body: Record<string, unknown>, key = org.key) =>
  api.request('POST', '/agents', { key, body });

describe('agents', () => {
  it('creates an agent with every field of the Agent table', async () => {
    const response = await createAgent({
      name: 'Support',
      workflow_definition: { nodes: [{ id: 'start' }] },
      template_context_variables: { company: 'Acme' },
      call_disposition_codes: { resolved: 'Issue resolved' },
      workflow_configurations: { language: 'en' },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual([
      'id',
      'public_id',
      'name',
      'status',
      'created_at',
      'updated_at',
      'workflow_definition',
      'current_definition_id',
      'template_context_variables',
      'call_disposition_codes',
      'total_runs',
      'workflow_configurations',
      // Beyond the spec's table (issue 23): what a call leaves on an answering machine.
      'voicemail_message',
    ]);
    expect(response.body).toMatchObject({
      voicemail_message: null,
      name: 'Support',
      status: 'active',
      workflow_definition: { nodes: [{ id: 'start' }] },
      template_context_variables: { company: 'Acme' },
      total_runs: 0,
    });
    expect(response.body.id).toBeTypeOf('number');
    expect(response.body.public_id).toMatch(/^agent_[A-Za-z0-9]{20}$/);
    expect(response.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });

  it('addresses the same agent by its public id and by its integer id', async () => {
    const { body: agent } = await createAgent({ name: 'Both ids' });
    const byPublic = await api.request('GET', `/agents/${agent.public_id}`, { key: org.key });
    const byInteger = await api.request('GET', `/agents/${agent.id}`, { key: org.key });
    expect(byPublic.status).toBe(200);
    expect(byInteger.body).toEqual(byPublic.body);
  });

  it('allocates distinct integer ids under concurrent creation', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => createAgent({ name: `Parallel ${i}` })));
    const ids = responses.map((response) => response.body.id as number);
    expect(responses.every((response) => response.status === 201)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('updates only the fields sent and versions a new definition', async () => {
    const { body: agent } = await createAgent({ name: 'Before', workflow_definition: { v: 1 } });
    const message = await api.request('PATCH', `/agents/${agent.public_id}`, {
      key: org.key,
      body: { voicemail_message: 'Please call us back.' },
    });
    expect(message.body.voicemail_message).toBe('Please call us back.');
    const noMessage = await api.request('PATCH', `/agents/${agent.public_id}`, {
      key: org.key,
      body: { voicemail_message: null },
    });
    expect(noMessage.body.voicemail_message).toBeNull();
    const empty = await api.request('PATCH', `/agents/${agent.public_id}`, {
      key: org.key,
      body: { voicemail_message: '' },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ type: 'string_too_short', loc: ['body', 'voicemail_message'] });
    const renamed = await api.request('PATCH', `/agents/${agent.public_id}`, { key: org.key, body: { name: 'After' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'After',
      workflow_definition: { v: 1 },
      current_definition_id: agent.current_definition_id,
    });
    const redefined = await api.request('PATCH', `/agents/${agent.id}`, {
      key: org.key,
      body: { workflow_definition: { v: 2 } },
    });
    expect(redefined.body.current_definition_id).toBeGreaterThan(agent.current_definition_id);
    expect(redefined.body.name).toBe('After');
  });

  it('archives and unarchives, idempotently, and filters the list by status', async () => {
    const own = await newOrganization('Status filter');
    const { body: kept } = await createAgent({ name: 'Kept' }, own.key);
    const { body: archived } = await createAgent({ name: 'Archived' }, own.key);
    expect((await api.request('POST', `/agents/${archived.public_id}/archive`, { key: own.key })).body.status).toBe(
      'archived',
    );
    expect((await api.request('POST', `/agents/${archived.public_id}/archive`, { key: own.key })).status).toBe(200);

    const names = async (query: string) =>
      ((await api.request('GET', `/agents${query}`, { key: own.key })).body as { name: string }[]).map(
        (agent) => agent.name,
      );
    expect(await names('')).toEqual(['Kept', 'Archived']);
    expect(await names('?status=active')).toEqual(['Kept']);
    expect(await names('?status=archived')).toEqual(['Archived']);
    expect(await names('?status=active,archived')).toEqual(['Kept', 'Archived']);

    const summary = await api.request('GET', '/agents/summary', { key: own.key });
    expect(summary.body).toEqual({
      total_count: 2,
      active_count: 1,
      archived_count: 1,
      total_runs: 0,
      last_created_at: archived.created_at,
    });

    expect((await api.request('POST', `/agents/${archived.id}/unarchive`, { key: own.key })).body.status).toBe(
      'active',
    );
    expect(await names('?status=archived')).toEqual([]);
    expect(kept.status).toBe('active');
  });

  it('answers 400 for an unknown status filter', async () => {
    for (const filter of ['deleted', 'active,deleted', '']) {
      const response = await api.request('GET', `/agents?status=${filter}`, { key: org.key });
      expect(response.status, filter).toBe(400);
      expect(response.body.detail).toContain('status');
    }
  });

  it('pages the list with page and limit, counts in headers', async () => {
    const own = await newOrganization('Paging');
    for (const name of ['a', 'b', 'c']) await createAgent({ name }, own.key);
    const page = await api.request('GET', '/agents?page=2&limit=2', { key: own.key });
    expect(page.body.map((agent: { name: string }) => agent.name)).toEqual(['c']);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('x-total-pages')).toBe('2');
    const bad = await api.request('GET', '/agents?page=0&limit=101', { key: own.key });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type])).toEqual([
      [['query', 'page'], 'greater_than_equal'],
      [['query', 'limit'], 'less_than_equal'],
    ]);
  });

  it('rejects invalid bodies with FastAPI 422 details', async () => {
    const missing = await api.request('POST', '/agents', { key: org.key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: {} }],
    });

    const tooLong = await createAgent({ name: 'x'.repeat(256) });
    expect(tooLong.body.detail[0]).toMatchObject({
      type: 'string_too_long',
      loc: ['body', 'name'],
      msg: 'String should have at most 255 characters',
    });

    const wrongType = await createAgent({ name: 'Ok', workflow_definition: [1] });
    expect(wrongType.body.detail[0]).toMatchObject({ type: 'dict_type', loc: ['body', 'workflow_definition'] });

    const malformed = await api.request('POST', '/agents', { key: org.key, body: '{"name": ' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: 'json_invalid', msg: 'JSON decode error' });
  });

  it('answers 404 for an agent that does not exist, 422 for a malformed id', async () => {
    expect((await api.request('GET', '/agents/999999999', { key: org.key })).status).toBe(404);
    expect((await api.request('GET', '/agents/agent_AAAAAAAAAAAAAAAAAAAA', { key: org.key })).status).toBe(404);
    const malformed = await api.request('GET', '/agents/not-an-id', { key: org.key });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(['path', 'agent_id']);
  });
});
