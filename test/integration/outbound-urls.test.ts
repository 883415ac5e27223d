import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';

/**
 * Every URL a customer gives goes through the SSRF guard. Only address literals here: nothing is
 * resolved and nothing connects, since each is refused before any connection.
 */
const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Outbound URLs');
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Guarded' } })).body;
});

const FORBIDDEN = [
  ['cloud metadata', 'https://169.254.169.254/latest/meta-data/'],
  ['a private network', 'https://10.0.0.5/hook'],
  ['carrier-grade NAT', 'https://100.64.1.1/hook'],
  ['IPv6 unique-local', 'https://[fd00::1]/hook'],
  ['IPv6 site-local', 'https://[fec0::1]/hook'],
  ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/hook'],
  ['NAT64 of a private address', 'https://[64:ff9b::a00:5]/hook'],
  ['6to4 of loopback', 'https://[2002:7f00:1::]/hook'],
] as const;

describe('URLs are refused when given', () => {
  it.each(FORBIDDEN)('webhook to %s', async (_name, url) => {
    const response = await api.request('POST', '/webhooks', { key: org.key, body: { url } });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Webhook URL refused: .* address/);
  });

  it.each(FORBIDDEN)('tool calling %s', async (_name, url) => {
    const response = await api.request('POST', `/agents/${agent.public_id}/tools`, {
      key: org.key,
      body: { name: 'lookup', description: 'Looks up', url, parameters: { properties: {} } },
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Tool URL refused/);
  });

  it('an organization model API on a private address', async () => {
    const response = await api.request('PUT', '/model-key', {
      key: org.key,
      body: { api_key: 'sk-test-123456789', api_url: 'http://192.168.1.10/v1', model: 'm' },
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Model API URL refused/);
    expect((await api.request('GET', '/model-key', { key: org.key })).body.configured).toBe(false);
  });

  it('a website to analyze at the metadata address', async () => {
    const response = await api.request('POST', '/agent-templates/analyze-script', {
      key: org.key,
      body: {
        script_text: 'Hello.',
        url: 'http://169.254.169.254/latest/meta-data/iam/',
        company_name: 'X',
        language: 'en',
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('link-local');
  });

  it('a calendar feed on a private address', async () => {
    const response = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'Feed',
        workflow_id: agent.id,
        source_type: 'calendar',
        source_config: { ics_url: 'https://172.16.0.9/cal.ics' },
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].msg).toContain('private');
  });
});

describe.skipIf(needsLocalStack)('tool headers at rest', () => {
  it('are stored encrypted, names only in the clear', async () => {
    const created = await api.request('POST', `/agents/${agent.public_id}/tools`, {
      key: org.key,
      body: {
        name: 'crm',
        description: 'CRM',
        url: 'https://93.184.215.14/crm',
        headers: { Authorization: 'Bearer crm-secret-77' },
      },
    });
    expect(created.status).toBe(201);
    Object.assign(process.env, inject('stackEnv'));
    const repository = await import('../../shared/repositories/agent-resources.ts');
    const stored = await repository.getTool(org.organizationId, agent.id, created.body.id);
    expect(stored).toMatchObject({
      header_names: ['Authorization'],
      headers_ciphertext: expect.stringMatching(/^local:/),
    });
    expect(JSON.stringify(stored)).not.toContain('crm-secret-77');
  });
});

describe.skipIf(needsLocalStack)('a calendar feed on loopback (the local stack allows it)', () => {
  const feed = createServer((request, response) => {
    if (request.url === '/to-private') return response.writeHead(302, { location: 'http://10.1.2.3/cal.ics' }).end();
    const start = new Date(Date.now() + 86_400_000).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:v1',
      `DTSTART:${start}`,
      'SUMMARY:Ola',
      `DESCRIPTION:Call ${daytimeNumber(7, 9)}`,
      'END:VEVENT',
      'END:VCALENDAR',
    ];
    response.writeHead(200, { 'content-type': 'text/calendar' }).end(ics.join('\r\n'));
  });
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => feed.close(resolve)));

  it('is read through the guard, and a redirect to a private address is refused', async () => {
    const campaign = (ics_url: string) =>
      api.request('POST', '/campaigns', {
        key: org.key,
        body: { name: 'Feed', workflow_id: agent.id, source_type: 'calendar', source_config: { ics_url } },
      });
    const created = await campaign(`${base}/cal.ics`);
    expect(created.status).toBe(200);
    expect(created.body.total_rows).toBe(1);
    const redirected = await campaign(`${base}/to-private`);
    expect(redirected.status).toBe(422);
    expect(redirected.body.detail[0].msg).toContain('10.1.2.3');
  });
});
