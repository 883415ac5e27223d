import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../shared/api/route.ts';
import { ConflictError } from '../../shared/domain/errors.ts';
import { ORGANIZATION_RATE_LIMIT } from '../../shared/api/gateway.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { organizationRateLimitHeaders } from '../../shared/http/rate-limit.ts';
import { logger } from '../../shared/observability/logger.ts';

const route = defineRoute({
  operationId: 'probe',
  method: 'POST',
  path: '/probe/{id}',
  group: 'probe',
  summary: 'probe',
  description: 'A route of this test.',
  tags: [],
  request: { params: z.object({ id: z.string() }), body: z.object({ n: z.int() }) },
  responses: { 200: { description: 'ok', schema: z.object({ n: z.int() }) } },
});

const event = (body: string, key = 'vap_AAAAAAAAAAAAAAAA_secretsecretsecretsecretsecretsecretsecr') =>
  ({
    httpMethod: 'POST',
    resource: '/api/v1/probe/{id}',
    path: '/api/v1/probe/1',
    pathParameters: { id: '1' },
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', authorizer: { organizationId: '7', keyId: 'key_AAAAAAAAAAAAAAAA' } },
  }) as unknown as APIGatewayProxyEvent;

const context = {
  functionName: 'probe',
  awsRequestId: 'aws-1',
  getRemainingTimeInMillis: () => 1000,
} as unknown as Context;

function captureLogs() {
  // Another test file in the same worker may have silenced logging through the environment.
  logger.setLogLevel('INFO');
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
  }
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe('createApiHandler', () => {
  it('turns an unexpected error into 500 {detail} without a stack, and logs the stack with the request and organization', async () => {
    const handler = createApiHandler([
      operation(route, async () => {
        throw new TypeError('cannot read properties of undefined');
      }),
    ]);
    const logs = captureLogs();
    const result = await handler(event('{"n": 1}'), context);
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toEqual({ detail: 'Internal Server Error' });
    const logged = logs.join('');
    expect(logged).toContain('cannot read properties of undefined');
    expect(logged).toMatch(/"stack":"TypeError/);
    expect(logged).toContain('"requestId":"req-1"');
    expect(logged).toContain('"organizationId":7');
    expect(logged).not.toContain('secretsecret');
  });

  it('maps domain errors to their status with Retry-After, and passes success bodies through the response schema', async () => {
    const handler = createApiHandler([
      operation(route, async ({ body }) => {
        if (body.n === 0) throw new ConflictError({ retry_at: '2026-11-23T07:00:00.000Z' }, 12.2);
        return { status: 200, body: { extra: 'dropped', n: body.n } };
      }),
    ]);
    const conflict = await handler(event('{"n": 0}'), context);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.headers?.['Retry-After']).toBe('13');
    expect(JSON.parse(conflict.body)).toEqual({ detail: { retry_at: '2026-11-23T07:00:00.000Z' } });
    const ok = await handler(event('{"n": 5}'), context);
    expect(JSON.parse(ok.body)).toEqual({ n: 5 });
  });

  it('answers 401 on a private route the authorizer did not pass', async () => {
    const handler = createApiHandler([operation(route, async () => ({ status: 200, body: { n: 1 } }))]);
    const unauthenticated = { ...event('{}'), requestContext: { requestId: 'r' } } as unknown as APIGatewayProxyEvent;
    expect((await handler(unauthenticated, context)).statusCode).toBe(401);
  });

  it('answers every request of an organization with the usage plan in RateLimit-Policy and its quota left in RateLimit', async () => {
    const handler = createApiHandler([
      operation(route, async ({ body }) => {
        if (body.n === 0) throw new ConflictError('busy', 3);
        return { status: 200, body: { n: body.n } };
      }),
    ]);
    const first = await handler(event('{"n": 1}'), context);
    const second = await handler(event('{"n": 0}'), context);
    const policy = `"organization";q=${ORGANIZATION_RATE_LIMIT.burstLimit};w=${ORGANIZATION_RATE_LIMIT.burstLimit / ORGANIZATION_RATE_LIMIT.rateLimit}`;
    for (const answer of [first, second]) {
      expect(answer.headers?.['RateLimit-Policy']).toBe(policy);
      expect(answer.headers?.RateLimit).toMatch(/^"organization";r=\d+;t=\d+$/);
    }
    // An error keeps its own Retry-After; each answer spent a request of the quota (the exact count: below).
    expect(second.headers?.['Retry-After']).toBe('3');
    for (const answer of [first, second])
      expect(Number(/r=(\d+)/.exec(String(answer.headers?.RateLimit))![1])).toBeLessThan(
        ORGANIZATION_RATE_LIMIT.burstLimit,
      );
  });
});

describe('organizationRateLimitHeaders (an instance counts what it answered)', () => {
  it('spends one request of the burst per answer, refills at the plan rate, and is whole again after t seconds', () => {
    const { rateLimit, burstLimit } = ORGANIZATION_RATE_LIMIT;
    const at = (ms: number) => organizationRateLimitHeaders(424242, ms).RateLimit;
    expect(at(0)).toBe(`"organization";r=${burstLimit - 1};t=1`);
    expect(at(0)).toBe(`"organization";r=${burstLimit - 2};t=1`);
    // A second later rateLimit tokens came back, capped at the burst, less this request's.
    expect(at(1000)).toBe(`"organization";r=${burstLimit - 1};t=1`);
    for (let i = 0; i < burstLimit; i++) at(1000);
    expect(at(1000)).toBe(`"organization";r=0;t=${Math.ceil(burstLimit / rateLimit)}`);
  });
});
