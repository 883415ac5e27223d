import { CORS_HEADERS, ORGANIZATION_RATE_LIMIT, THROTTLE_RETRY_AFTER_SECONDS } from '../api/gateway.ts';
import type { ResponseHeader, ResponseSpec } from '../api/route.ts';
import { RATE_LIMIT_POLICY } from '../http/rate-limit.ts';
import { ErrorResponse } from '../schemas/common.ts';

/** The longest `Retry-After` the API sends: calling hours open again within a day. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

export const RETRY_AFTER: ResponseHeader = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_RETRY_AFTER_SECONDS },
};

const { rateLimit, burstLimit } = ORGANIZATION_RATE_LIMIT;

/**
 * Headers every answer carries (IETF draft httpapi-ratelimit-headers, and CORS): the document
 * lists them on every response as references to `components.headers`.
 */
export const STANDARD_HEADERS: Record<string, ResponseHeader> = {
  'RateLimit-Policy': {
    description: `The organization's rate limit (the API Gateway usage plan): a bucket of ${burstLimit} requests refilled at ${rateLimit} per second, i.e. \`q=${burstLimit}\` requests per \`w=${burstLimit / rateLimit}\` seconds. Exact and the same on every answer, the gateway's own included. Public routes (documentation) are limited only by the API's shared ceiling.`,
    schema: { type: 'string', maxLength: 64, enum: [RATE_LIMIT_POLICY] },
  },
  RateLimit: {
    description: `What is left of the organization's quota: \`r\` requests, whole again in \`t\` seconds. Exact on the gateway's 429 (\`r=0;t=${THROTTLE_RETRY_AFTER_SECONDS}\`). On other answers an estimate: each API function instance counts the requests it answered itself, so \`r\` is an upper bound when several instances serve the organization. Absent on answers given before the organization is known (401, 403 of the gateway) and on public routes.`,
    schema: { type: 'string', maxLength: 64, pattern: '^"organization";r=\\d{1,4};t=\\d{1,4}$' },
  },
  'Access-Control-Allow-Origin': {
    description:
      'Any origin may read the answers: the API is authorized by the X-API-Key header, never by cookies, so a page reads nothing its own code did not send a key for. Preflights (`OPTIONS`) are answered 204 with the methods of the path.',
    schema: { type: 'string', maxLength: 1, enum: [CORS_HEADERS['Access-Control-Allow-Origin']] },
  },
  'Access-Control-Expose-Headers': {
    description: 'The headers a page on another origin may read.',
    schema: { type: 'string', maxLength: 256, enum: [CORS_HEADERS['Access-Control-Expose-Headers']] },
  },
};

/** The 429 of every operation: the organization's rate limit (a call placement's 429 adds channel capacity). */
export const RATE_LIMITED: ResponseSpec = {
  description: `Over the organization's rate limit (${rateLimit}/s, bursts of ${burstLimit}): \`detail\` starts with \`rate_limited:\`; retry after \`Retry-After\` seconds.`,
  schema: ErrorResponse,
  headers: { 'Retry-After': RETRY_AFTER },
};

/** The 500 of every operation: an unexpected failure, logged with the request id; no stack reaches the client. */
export const INTERNAL_ERROR: ResponseSpec = {
  description:
    'Unexpected server error: `{"detail": "Internal Server Error"}`. Idempotent requests (GET, PUT, DELETE, and a call placement sent with its `Idempotency-Key`) may be retried.',
  schema: ErrorResponse,
};
