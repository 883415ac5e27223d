import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, revokeKey, type TestOrganization } from '../support/api.ts';

const api = apiClient();
/** The local stack under test caches authorizer results for 1 s (see global-setup). */
const AUTHORIZER_CACHE_SECONDS = Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS ?? 1);

let first: TestOrganization;
let second: TestOrganization;

beforeAll(async () => {
  [first, second] = await Promise.all([newOrganization('First'), newOrganization('Second')]);
});

describe('API-key authentication', () => {
  it('refuses a request without a key, or with an unknown or malformed one, with 401 {detail}', async () => {
    for (const key of [undefined, 'vap_AAAAAAAAAAAAAAAA_' + 'a'.repeat(40), 'not-a-key']) {
      const response = await api.request('GET', '/agents', { key });
      expect(response.status, String(key)).toBe(401);
      expect(response.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('isolates organizations: another organization’s agent is 404, as if it did not exist', async () => {
    const { body: agent } = await api.request('POST', '/agents', { key: first.key, body: { name: 'Private' } });
    expect((await api.request('GET', '/agents', { key: second.key })).body).toEqual([]);
    for (const id of [agent.id, agent.public_id]) {
      for (const [method, path] of [
        ['GET', `/agents/${id}`],
        ['PATCH', `/agents/${id}`],
        ['POST', `/agents/${id}/archive`],
      ] as const) {
        const response = await api.request(method, path, {
          key: second.key,
          body: method === 'PATCH' ? { name: 'Stolen' } : undefined,
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body).toEqual({ detail: 'Agent not found' });
      }
    }
    expect((await api.request('GET', `/agents/${agent.id}`, { key: first.key })).body.name).toBe('Private');
  });

  it('stops accepting a revoked key once the authorizer cache entry expires', async () => {
    const org = await newOrganization('Revocation');
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
    await revokeKey(org.keyId);
    await sleep(AUTHORIZER_CACHE_SECONDS * 1000 + 200);
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(401);
  });

  it('serves the documentation without a key', async () => {
    expect((await api.request('GET', '/public-openapi.json')).status).toBe(200);
    expect((await api.request('GET', '/public-docs')).status).toBe(200);
  });
});

describe('routing errors', () => {
  it('answers 404 {detail} for an unknown route and 405 with Allow for a wrong method', async () => {
    const unknown = await api.request('GET', '/no-such-thing', { key: first.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });

    const wrongMethod = await api.request('DELETE', '/agents', { key: first.key });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ detail: 'Method Not Allowed' });
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });
});
