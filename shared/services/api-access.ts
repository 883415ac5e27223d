import { randomBytes } from 'node:crypto';
import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  FlushStageAuthorizersCacheCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { requiredSetting } from '../config/settings.ts';

/**
 * The API Gateway side of organizations, for the operator CLI (no Lambda function calls these):
 * each organization has an API Gateway API key in the stack's usage plan, which API Gateway uses
 * to throttle it (the authorizer names it in `usageIdentifierKey`), and the authorizer cache is
 * flushed whenever a key or an organization stops being valid, so the change holds at once.
 * Settings: REST_API_ID, API_STAGE_NAME, USAGE_PLAN_ID (stack outputs); the local stack's gateway
 * serves the same API (AWS_ENDPOINT_URL_API_GATEWAY).
 */
const client = () => new APIGatewayClient({});

/** A new usage-plan key value for an organization. */
export const newUsagePlanKey = (): string => `org_${randomBytes(24).toString('base64url')}`;

const apiKeyName = (organizationId: number) => `organization-${organizationId}`;

/** Creates the organization's API key with `value` and adds it to the usage plan; safe to repeat. */
export async function registerUsagePlanKey(organizationId: number, value: string): Promise<void> {
  const gateway = client();
  const usagePlanId = requiredSetting('USAGE_PLAN_ID');
  let keyId: string | undefined;
  try {
    keyId = (await gateway.send(new CreateApiKeyCommand({ name: apiKeyName(organizationId), value, enabled: true })))
      .id;
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
    // Created by an earlier, interrupted attempt: find it by name and value.
    const existing = await gateway.send(
      new GetApiKeysCommand({ nameQuery: apiKeyName(organizationId), includeValues: true }),
    );
    keyId = existing.items?.find((key) => key.value === value)?.id;
  }
  if (!keyId) throw new Error(`API Gateway returned no id for the API key of organization ${organizationId}`);
  try {
    await gateway.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId, keyType: 'API_KEY' }));
  } catch (error) {
    if (!(error instanceof ConflictException)) throw error;
  }
}

/**
 * Empties the stage's authorizer cache: the next request of every key is authorized afresh, so a
 * revoked key or a suspended organization is refused at once instead of after the cache TTL.
 */
export async function flushAuthorizerCache(): Promise<void> {
  await client().send(
    new FlushStageAuthorizersCacheCommand({
      restApiId: requiredSetting('REST_API_ID'),
      stageName: requiredSetting('API_STAGE_NAME'),
    }),
  );
}
