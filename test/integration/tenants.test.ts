import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { API_PREFIX } from '../../shared/api/route.ts';
import { GATEWAY_ERRORS, THROTTLE_RETRY_AFTER_SECONDS } from '../../shared/api/gateway.ts';
import { RATE_LIMIT_POLICY } from '../../shared/http/rate-limit.ts';
import { configureLocalFunctions } from '../../local/lambda-runtime.ts';
import { startLocalGateway, type LocalGateway } from '../../local/gateway.ts';
import { apiClient, needsLocalStack, newOrganization } from '../support/api.ts';

/**
 * A second local gateway in this process, on the same emulators, with the production authorizer
 * cache (5 min, so only a flush explains a change within the test) and a tiny usage plan.
 */
let gateway: LocalGateway;
let api: ReturnType<typeof apiClient>;
const USAGE_PLAN = { rateLimit: 2, burstLimit: 3 };

/** Operator actions run against this gateway's management API, as the CLI does against AWS. */
async function asOperator<T>(
  action: (services: typeof import('../../shared/services/organizations.ts')) => Promise<T>,
): Promise<T> {
  process.env.AWS_ENDPOINT_URL_API_GATEWAY = gateway.managementEndpoint;
  return action(await import('../../shared/services/organizations.ts'));
}

beforeAll(async () => {
  if (needsLocalStack) return;
  Object.assign(process.env, inject('stackEnv'));
  configureLocalFunctions({ ...inject('stackEnv') });
  gateway = await startLocalGateway({ port: 0, authorizerCacheTtlSeconds: 300, usagePlan: USAGE_PLAN });
  api = apiClient(`${gateway.origin}${API_PREFIX}`);
});
afterAll(async () => gateway?.close());

describe.skipIf(needsLocalStack)('keys and organizations', () => {
  it('refuses a revoked key at once, although its allow is cached for minutes (the stage cache is flushed)', async () => {
    const org = await newOrganization('Revoked at once');
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
    await asOperator((services) => services.revokeApiKey(org.keyId));
    const refused = await api.request('GET', '/agents', { key: org.key });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: GATEWAY_ERRORS.unauthorized.detail });
  });

  it('refuses every key of a suspended organization with 403, and accepts them again on resume', async () => {
    const org = await newOrganization('Suspended');
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
    await asOperator((services) => services.setOrganizationSuspended(org.organizationId, true));
    const refused = await api.request('GET', '/agents', { key: org.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: GATEWAY_ERRORS.accessDenied.detail });
    await asOperator((services) => services.setOrganizationSuspended(org.organizationId, false));
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
  });

  it('refuses a key whose organization does not exist', async () => {
    const { generateApiKey } = await import('../../shared/domain/api-key-format.ts');
    const { putApiKey } = await import('../../shared/repositories/api-keys.ts');
    const orphan = generateApiKey();
    await putApiKey({
      keyId: orphan.keyId,
      organizationId: 987_654_321,
      secretHash: orphan.secretHash,
      createdAt: new Date().toISOString(),
    });
    expect((await api.request('GET', '/agents', { key: orphan.key })).status).toBe(401);
  });

  it('refuses an organization with no key in the usage plan with 403 saying what to do; `org usage-plan` fixes it', async () => {
    const org = await newOrganization('Created before throttling');
    const { db, tableName } = await import('../../shared/repositories/table.ts');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { keys } = await import('../../shared/repositories/keys.ts');
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(org.organizationId),
        UpdateExpression: 'REMOVE usagePlanKey',
      }),
    );
    await asOperator(async () => (await import('../../shared/services/api-access.ts')).flushAuthorizerCache());
    const refused = await api.request('GET', '/agents', { key: org.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: GATEWAY_ERRORS.invalidApiKey.detail });
    await asOperator((services) => services.ensureUsagePlanKey(org.organizationId));
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
  });
});

describe.skipIf(needsLocalStack)('per-organization throttling', () => {
  it('answers 429 rate_limited with Retry-After past the organization’s burst, without touching another organization', async () => {
    const [busy, quiet] = await Promise.all([newOrganization('Busy'), newOrganization('Quiet')]);
    const statuses = await Promise.all(
      Array.from({ length: USAGE_PLAN.burstLimit + 3 }, () => api.request('GET', '/agents', { key: busy.key })),
    );
    const throttled = statuses.filter((response) => response.status === 429);
    expect(statuses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(USAGE_PLAN.burstLimit);
    expect(throttled.length).toBeGreaterThanOrEqual(3);
    for (const response of throttled) {
      expect(response.headers.get('retry-after')).toBe(String(THROTTLE_RETRY_AFTER_SECONDS));
      // The quota is used up until Retry-After (IETF RateLimit headers), and the policy says what it is.
      expect(response.headers.get('ratelimit')).toBe(`"organization";r=0;t=${THROTTLE_RETRY_AFTER_SECONDS}`);
      expect(response.headers.get('ratelimit-policy')).toBe(RATE_LIMIT_POLICY);
      // Distinguishable from the channel-capacity 429 of call placement.
      expect(response.body.detail).toMatch(/^rate_limited: /);
    }
    const quietAnswer = await api.request('GET', '/agents', { key: quiet.key });
    expect(quietAnswer.status).toBe(200);
    expect(quietAnswer.headers.get('ratelimit-policy')).toBe(RATE_LIMIT_POLICY);
    expect(quietAnswer.headers.get('ratelimit')).toMatch(/^"organization";r=\d+;t=\d+$/);
    await sleep(THROTTLE_RETRY_AFTER_SECONDS * 1000);
    expect((await api.request('GET', '/agents', { key: busy.key })).status).toBe(200);
  });
});
