/**
 * API Gateway settings that the CDK stack and the local gateway must agree on.
 */

/** Request bodies of these types reach Lambda base64-encoded (uploads). */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'application/octet-stream', 'application/pdf', 'audio/wav'];

/** The header the authorizer reads, and its cache lifetime: a revoked key stops working within it. */
export const API_KEY_HEADER = 'X-API-Key';
/** API Gateway refuses larger request payloads (REST API quota: 10 MB). */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/**
 * Lambda's limit on a synchronous invocation's event and response (6 MB). A request whose proxy
 * event is larger never reaches the handler (API Gateway answers 5xx; the local gateway 413), so
 * request caps are chosen below it; responses are kept below it by the list caps.
 */
export const MAX_LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;
/**
 * The largest request bodies that fit Lambda's 6 MB event once wrapped in the proxy event: a
 * binary body is base64-encoded there (a third larger), a text body escaped as a JSON string
 * (room kept for its escapes and the headers). Larger ones get 413 before any Lambda runs: from
 * the stack's web ACL (Content-Length) on AWS, from the local gateway locally.
 */
export const MAX_BODY_BYTES = { binary: 4_600_000, text: 6_000_000 } as const;

export const AUTHORIZER_CACHE_TTL_SECONDS = Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS ?? 60);

/**
 * Requests per second each organization may send (API Gateway usage plan, keyed by organization
 * through the authorizer's `usageIdentifierKey`), and the burst above it; over it, 429 with
 * `Retry-After`. Channel capacity (concurrent calls) is a separate 429 answered by the API itself.
 */
export const ORGANIZATION_RATE_LIMIT = { rateLimit: 50, burstLimit: 100 } as const;
/** The stage's own ceiling, above every organization's (all organizations together). */
export const STAGE_RATE_LIMIT = { rateLimit: 1000, burstLimit: 2000 } as const;
/** A throttled client may retry after this many seconds (token buckets refill every second). */
export const THROTTLE_RETRY_AFTER_SECONDS = 1;

/**
 * Cross-origin use (a console or page on another origin calling this API): every answer, the
 * gateway's own included, carries these. Any origin may read: the API is authorized by the
 * X-API-Key header, never by cookies, so a page reads nothing its own code did not send a key for.
 */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'RateLimit, RateLimit-Policy, Retry-After, X-Total-Count, X-Total-Pages, X-Truncated, Content-Disposition',
} as const;

/** A preflight's answer for a path that has `methods`: the headers a request of the API sends, cached 10 minutes. */
export const preflightHeaders = (methods: string[]): Record<string, string> => ({
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': methods.join(', '),
  'Access-Control-Allow-Headers': `${API_KEY_HEADER}, Content-Type, Idempotency-Key, Authorization`,
  'Access-Control-Max-Age': '600',
});

/** Bodies of the answers API Gateway itself gives (gateway responses), mirrored locally. */
export const GATEWAY_ERRORS = {
  /**
   * API Gateway answers this itself when X-API-Key is absent (the authorizer is not called), so
   * the text is one for every case: it says where the key goes, and that a Bearer token is not read.
   */
  unauthorized: {
    status: 401,
    detail:
      "Missing or invalid API key: send your organization's key in the X-API-Key header (X-API-Key: <key>); an Authorization: Bearer header is not read",
  },
  /** The authorizer denies the keys of a suspended organization. */
  accessDenied: { status: 403, detail: 'The organization of this API key is suspended' },
  /** The organization has no key in the usage plan (API Gateway's INVALID_API_KEY). */
  invalidApiKey: {
    status: 403,
    detail: 'The organization of this API key has no API access set up: an operator runs `admin org usage-plan`',
  },
  notFound: { status: 404, detail: 'Not Found' },
  methodNotAllowed: { status: 405, detail: 'Method Not Allowed' },
  /** Distinct from the channel-capacity 429 by its `detail` prefix (`rate_limited:`) and `Retry-After: 1`. */
  throttled: {
    status: 429,
    detail: `rate_limited: too many requests for this organization (${ORGANIZATION_RATE_LIMIT.rateLimit}/s, bursts of ${ORGANIZATION_RATE_LIMIT.burstLimit}); retry after Retry-After seconds`,
  },
  requestTooLarge: { status: 413, detail: 'Request Entity Too Large' },
  /** A Lambda that failed or returned a malformed result (API Gateway answers 502). */
  badGateway: { status: 502, detail: 'Internal Server Error' },
  internal: { status: 500, detail: 'Internal Server Error' },
} as const;
