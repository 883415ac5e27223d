import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../shared/api/route.ts';
import { ConflictError } from '../../shared/domain/errors.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
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
});
