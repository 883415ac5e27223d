import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Do not call');
});

describe('do-not-call list', () => {
  it('normalises numbers to E.164, is idempotent, pages, and removes', async () => {
    const added = await api.request('POST', '/do-not-call', {
      key: org.key,
      body: { phone_number: '+48 601-234-567' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ phone_number: '+48601234567', created_at: expect.any(String) });
    const again = await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: '+48601234567' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(added.body);
    await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: '+12025550123' } });

    const page = await api.request('GET', '/do-not-call?limit=1&page=2', { key: org.key });
    expect(page.body).toEqual({ items: [added.body], page: 2, limit: 1, total_count: 2, total_pages: 2 });

    expect((await api.request('DELETE', '/do-not-call/%2B48%20601%20234%20567', { key: org.key })).status).toBe(204);
    expect((await api.request('DELETE', '/do-not-call/+48601234567', { key: org.key })).status).toBe(404);
    expect((await api.request('GET', '/do-not-call', { key: org.key })).body.total_count).toBe(1);
  });

  it('refuses a number that is not E.164 with a FastAPI value_error', async () => {
    for (const phone_number of ['601234567', '+4860', 'call me']) {
      const response = await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number } });
      expect(response.status, phone_number).toBe(422);
      expect(response.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'phone_number'] });
      expect(response.body.detail[0].msg).toMatch(/^Value error, /);
    }
  });

  it('keeps each organization’s list to itself', async () => {
    const other = await newOrganization('Other list');
    await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: '+442079460000' } });
    expect((await api.request('GET', '/do-not-call', { key: other.key })).body.total_count).toBe(0);
    expect((await api.request('DELETE', '/do-not-call/+442079460000', { key: other.key })).status).toBe(404);
  });
});
