import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Knowledge and tools');
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Clinic assistant' } })).body;
});

const kb = (suffix = '') => `/agents/${agent.public_id}/knowledge-base${suffix}`;

describe('knowledge base', () => {
  it('stores documents as passages and retrieves the best ones for a question', async () => {
    const faq = await api.request('POST', kb('/documents'), {
      key: org.key,
      body: {
        title: 'Clinic FAQ',
        content: 'We are open Monday to Friday from 9 to 17.\n\nA check-up costs 200 PLN; whitening costs 800 PLN.',
      },
    });
    expect(faq.status).toBe(201);
    expect(faq.body).toMatchObject({
      id: expect.stringMatching(/^doc_/),
      workflow_id: agent.id,
      title: 'Clinic FAQ',
      chunks: 1,
    });
    const long = await api.request('POST', kb('/documents'), {
      key: org.key,
      body: {
        title: 'Directions',
        content: Array.from(
          { length: 40 },
          (_, i) => `Paragraph ${i}: the clinic is at Marszałkowska 1 with parking behind the building.`,
        ).join('\n\n'),
      },
    });
    expect(long.body.chunks).toBeGreaterThan(1);

    const answer = await api.request(
      'GET',
      `${kb('/search')}?q=${encodeURIComponent('how much is whitening')}&limit=1`,
      { key: org.key },
    );
    expect(answer.body.passages).toEqual([
      expect.objectContaining({
        document_id: faq.body.id,
        title: 'Clinic FAQ',
        text: expect.stringContaining('800 PLN'),
      }),
    ]);
    expect((await api.request('GET', `${kb('/search')}?q=quantum`, { key: org.key })).body.passages).toEqual([]);

    expect((await api.request('GET', kb('/documents'), { key: org.key })).body.total_count).toBe(2);
    expect((await api.request('DELETE', kb(`/documents/${faq.body.id}`), { key: org.key })).status).toBe(204);
    const after = await api.request('GET', `${kb('/search')}?q=whitening`, { key: org.key });
    expect(after.body.passages).toEqual([]);
    expect((await api.request('DELETE', kb(`/documents/${faq.body.id}`), { key: org.key })).status).toBe(404);
  });

  it('validates documents and queries, and keeps each organization to its own agents', async () => {
    const empty = await api.request('POST', kb('/documents'), { key: org.key, body: { title: '', content: '' } });
    expect(empty.body.detail.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type])).toEqual([
      [['body', 'title'], 'string_too_short'],
      [['body', 'content'], 'string_too_short'],
    ]);
    expect((await api.request('GET', `${kb('/search')}?q=x&limit=21`, { key: org.key })).status).toBe(422);
    const stranger = await newOrganization('KB stranger');
    expect((await api.request('GET', `${kb('/search')}?q=hours`, { key: stranger.key })).status).toBe(404);
  });
});

describe('tools', () => {
  const tool = {
    name: 'book_visit',
    description: 'Books a visit in the clinic calendar',
    method: 'POST',
    // A public address literal: storing the tool resolves no name and nothing connects to it.
    url: 'https://93.184.215.14/visits',
    headers: { 'X-Clinic': 'north', Authorization: 'Bearer clinic-secret' },
    parameters: {
      type: 'object',
      properties: { date: { type: 'string', description: 'ISO date' }, slot: { type: 'integer' } },
      required: ['date'],
    },
  };

  it('attaches typed HTTP tools to an agent', async () => {
    const created = await api.request('POST', `/agents/${agent.public_id}/tools`, { key: org.key, body: tool });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^tool_/),
      workflow_id: agent.id,
      name: 'book_visit',
      method: 'POST',
    });
    expect(created.body.parameters.properties.date).toEqual({ type: 'string', description: 'ISO date' });
    // Header values are write-only (stored encrypted).
    expect(created.body.headers).toEqual({ 'X-Clinic': '********', Authorization: '********' });
    expect(created.text).not.toContain('clinic-secret');
    expect((await api.request('POST', `/agents/${agent.public_id}/tools`, { key: org.key, body: tool })).status).toBe(
      409,
    );
    expect((await api.request('GET', `/agents/${agent.id}/tools`, { key: org.key })).body.items).toHaveLength(1);
    const fetched = await api.request('GET', `/agents/${agent.id}/tools/${created.body.id}`, { key: org.key });
    expect(fetched.body).toMatchObject({
      name: 'book_visit',
      headers: { 'X-Clinic': '********', Authorization: '********' },
    });
    expect(fetched.text).not.toContain('clinic-secret');
    expect((await api.request('DELETE', `/agents/${agent.id}/tools/${created.body.id}`, { key: org.key })).status).toBe(
      204,
    );
    expect((await api.request('GET', `/agents/${agent.id}/tools/${created.body.id}`, { key: org.key })).status).toBe(
      404,
    );
  });

  it.each([
    [{ name: 'Book Visit' }, ['body', 'name'], 'string_pattern_mismatch'],
    [{ url: 'ftp://api.example.com/x' }, ['body', 'url'], 'value_error'],
    [{ method: 'TRACE' }, ['body', 'method'], 'literal_error'],
    [
      { parameters: { properties: { date: { type: 'date' } } } },
      ['body', 'parameters', 'properties', 'date', 'type'],
      'literal_error',
    ],
    [{ parameters: { properties: {}, required: ['date'] } }, ['body', 'parameters', 'required'], 'value_error'],
  ])('refuses %j', async (change, loc, type) => {
    const response = await api.request('POST', `/agents/${agent.public_id}/tools`, {
      key: org.key,
      body: { ...tool, name: 'other_tool', ...change },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc, type });
  });
});
