import { describe, expect, it } from 'vitest';
import { apiClient, newOrganization } from '../support/api.ts';

/** Self-service API keys: what the console's API page uses, isolated per organization. */
const api = apiClient();

describe('API keys of the organization', () => {
  it('creates a key that works at once and is shown once; lists keys without their secrets', async () => {
    const org = await newOrganization('Keys');
    const created = await api.request('POST', '/api-keys', { key: org.key, body: { name: 'CRM integration' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_[A-Za-z0-9]{16}$/),
      name: 'CRM integration',
      key_prefix: `vap_${created.body.id.slice(4)}_…`,
      created_at: expect.any(String),
      revoked_at: null,
      key: expect.stringMatching(/^vap_[A-Za-z0-9]{16}_[A-Za-z0-9]{40}$/),
    });
    expect(created.body.key.startsWith(created.body.key_prefix.slice(0, -1))).toBe(true);
    expect((await api.request('GET', '/agents', { key: created.body.key })).status).toBe(200);

    const listed = await api.request('GET', '/api-keys', { key: created.body.key });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total_count: 2, page: 1 });
    expect(listed.body.items.map((key: { name: string }) => key.name)).toEqual(['API key', 'CRM integration']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect((await api.request('POST', '/api-keys', { key: org.key, body: {} })).body.name).toBe('API key');
    expect((await api.request('POST', '/api-keys', { key: org.key, body: { name: '' } })).status).toBe(422);
  });

  it('revokes a key: refused from the next request on, though the gateway caches authorizations', async () => {
    const org = await newOrganization('Revoking');
    const spare = (await api.request('POST', '/api-keys', { key: org.key, body: { name: 'Leaked' } })).body;
    // Authorized once: the gateway's authorizer cache now holds this key.
    expect((await api.request('GET', '/agents', { key: spare.key })).status).toBe(200);
    expect((await api.request('DELETE', `/api-keys/${spare.id}`, { key: org.key })).status).toBe(204);
    expect((await api.request('GET', '/agents', { key: spare.key })).status).toBe(401);
    const listed = await api.request('GET', '/api-keys', { key: org.key });
    expect(listed.body.items.find((key: { id: string }) => key.id === spare.id).revoked_at).toEqual(expect.any(String));
    // Again: not an error, the first time is kept.
    expect((await api.request('DELETE', `/api-keys/${spare.id}`, { key: org.key })).status).toBe(204);
  });

  it("refuses to revoke the key making the request, another organization's key, or a malformed id", async () => {
    const org = await newOrganization('Self');
    const stranger = await newOrganization('Stranger');
    const own = (await api.request('GET', '/api-keys', { key: org.key })).body.items[0];
    const self = await api.request('DELETE', `/api-keys/${own.id}`, { key: org.key });
    expect(self.status).toBe(409);
    expect(self.body.detail).toContain('cannot revoke itself');
    const foreign = await api.request('DELETE', `/api-keys/${own.id}`, { key: stranger.key });
    expect(foreign.status).toBe(404);
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
    expect((await api.request('GET', '/api-keys', { key: stranger.key })).body.items).toHaveLength(1);
    const malformed = await api.request('DELETE', '/api-keys/not-a-key', { key: org.key });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(['path', 'key_id']);
  });
});
