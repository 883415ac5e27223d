import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { API_KEY_HEADER } from '../../shared/api/gateway.ts';
import { logger } from '../../shared/observability/logger.ts';
import { authenticateApiKey } from '../../shared/services/api-key-authentication.ts';

function headerValue(headers: Record<string, string | undefined> | null, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

/**
 * The policy covers every method of the stage: API Gateway caches it per key, and a policy naming
 * only the first method would deny the key's next, different request from cache.
 */
function stageWildcard(methodArn: string): string {
  const [arnPrefix, apiId, stage] = methodArn.split('/');
  return `${arnPrefix}/${apiId}/${stage}/*/*`;
}

/**
 * API-key request authorizer. Throwing `Unauthorized` is how a Lambda authorizer makes API
 * Gateway answer 401 (the UNAUTHORIZED gateway response); a Deny policy gives 403 (ACCESS_DENIED),
 * used for the keys of a suspended organization. `usageIdentifierKey` names the organization's key
 * in the usage plan (API key source AUTHORIZER), so API Gateway throttles per organization.
 * The key itself is never logged.
 */
async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const key = headerValue(event.headers, API_KEY_HEADER);
  const caller = key ? await authenticateApiKey(key) : undefined;
  if (!caller) {
    logger.info('API key rejected', { keyPresent: Boolean(key) });
    throw new Error('Unauthorized');
  }
  const effect = caller.suspended ? 'Deny' : 'Allow';
  logger.info(caller.suspended ? 'API key of a suspended organization refused' : 'API key accepted', {
    keyId: caller.keyId,
    organizationId: caller.organizationId,
  });
  return {
    principalId: caller.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageWildcard(event.methodArn) }],
    },
    context: { organizationId: String(caller.organizationId), keyId: caller.keyId },
    ...(caller.usagePlanKey ? { usageIdentifierKey: caller.usagePlanKey } : {}),
  };
}

export const handler = middy(authorize).use(injectLambdaContext(logger, { resetKeys: true }));
