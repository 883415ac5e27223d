/**
 * Cross-origin use: a page on another origin (the console deployed elsewhere, a customer's own page)
 * reads the API's answers, the gateway's own, and a large file at the end of a presigned link.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newOrganization, type TestOrganization } from '../support/api.ts';
import { RATE_LIMIT_POLICY } from '../../shared/http/rate-limit.ts';

let first: TestOrganization;

beforeAll(async () => {
  first = await newOrganization('Cross-origin');
});

describe('cross-origin use (CORS)', () => {
  const origin = 'http://127.0.0.1:9';
  const base = inject('baseUrl');

  it('answers a preflight of a known path with its methods and the headers a call sends, without a key', async () => {
    const preflight = await fetch(`${base}/agents`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries([...preflight.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'X-API-Key, Content-Type, Idempotency-Key, Authorization',
      'access-control-expose-headers':
        'RateLimit, RateLimit-Policy, Retry-After, X-Total-Count, X-Total-Pages, X-Truncated, Content-Disposition',
      'access-control-max-age': '600',
    });
    expect((await fetch(`${base}/no-such-thing`, { method: 'OPTIONS', headers: { Origin: origin } })).status).toBe(404);
  });

  it("lets a page on another origin read every answer: the API's, a validation error and the gateway's own 401", async () => {
    const answers = await Promise.all([
      fetch(`${base}/agents`, { headers: { Origin: origin, 'X-API-Key': first.key } }),
      fetch(`${base}/agents?limit=0`, { headers: { Origin: origin, 'X-API-Key': first.key } }),
      fetch(`${base}/agents`, { headers: { Origin: origin } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 422, 401]);
    for (const answer of answers) expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answers[0]!.headers.get('access-control-expose-headers')).toContain('X-Total-Pages');
    // The rate limit, readable too: the policy on every answer, what is left once the organization is known.
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe(RATE_LIMIT_POLICY);
    expect(answers.map((answer) => answer.headers.get('ratelimit') !== null)).toEqual([true, true, false]);
  });

  it('lets it read a stored file through its presigned link (the bucket answers CORS, read-only)', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const files = await import('../../shared/repositories/run-files.ts');
    await files.putRunFile('reports/cross-origin.csv', 'phone\n+48601234567\n', 'text/csv');
    const url = await files.presignedRunFileUrl('reports/cross-origin.csv', 'text/csv', 60);
    const read = await fetch(url, { headers: { Origin: origin } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(await read.text()).toBe('phone\n+48601234567\n');
  });
});
