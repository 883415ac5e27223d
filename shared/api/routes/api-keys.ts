import { ApiKeyIdParam, ApiKeyPage, CreateApiKeyRequest, CreatedApiKey } from '../../schemas/api-keys.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const apiKeyRoutes = {
  createApiKey: defineRoute({
    operationId: 'createApiKey',
    method: 'POST',
    path: '/api-keys',
    group: 'apiKeys',
    summary: 'Create an API key',
    description:
      "A new key for the caller's organization, working at once. The whole key is in this response only: it is stored as a hash and cannot be shown again.",
    tags: ['API keys'],
    request: { body: CreateApiKeyRequest },
    responses: { 201: { description: 'Created', schema: CreatedApiKey }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  listApiKeys: defineRoute({
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/api-keys',
    group: 'apiKeys',
    summary: "List the organization's API keys",
    description: 'Active and revoked keys, oldest first, without their secrets.',
    tags: ['API keys'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: ApiKeyPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  revokeApiKey: defineRoute({
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: '/api-keys/{key_id}',
    group: 'apiKeys',
    summary: 'Revoke an API key',
    description:
      "The key is refused from the next request on (the gateway's authorizer cache is flushed). Revoking a revoked key again is not an error. " +
      'A key cannot revoke itself (409): use another key of the organization, so that one always remains.',
    tags: ['API keys'],
    request: { params: ApiKeyIdParam },
    responses: {
      204: { description: 'Revoked' },
      409: { description: 'The key making the request', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
