import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../shared/api/gateway.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Hardening');
});

describe('bad input never gives a 5xx', () => {
  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])('GET /public-docs/%s is a 404', async (asset) => {
    const { status, body } = await api.request('GET', `/public-docs/${asset}`);
    expect(status).toBe(404);
    expect(body).toEqual({ detail: 'Not Found' });
  });

  it('prototype names as query parameters and headers are plain names', async () => {
    const response = await api.request('GET', '/agents?__proto__=1&constructor=2&toString=3', { key: org.key, headers: { constructor: 'x' } });
    expect(response.status).toBe(200);
  });

  it('a body over 10 MB is a 413 {detail}, not a reset connection', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(MAX_REQUEST_BYTES + 10) });
    const { status, body: answer } = await api.request('POST', '/agents', { key: org.key, body });
    expect(status).toBe(413);
    expect(answer).toEqual({ detail: 'Request Entity Too Large' });
  });

  it('a truncated multipart upload is a 422 and the stack keeps serving', async () => {
    const boundary = 'xBOUNDARYx';
    const { status, body } = await api.request('POST', '/agent-templates/extract-text', {
      key: org.key,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello`,
    });
    expect(status).toBe(422);
    expect(body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body'] });
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
  });
});
