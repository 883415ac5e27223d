import * as z from 'zod';

// No import of common.ts (it uses these): every schema file imports it, which adds `.openapi()` to zod.
const INT32_MAX = 2 ** 31 - 1;

/**
 * An integer schema with its bounds and format written into the OpenAPI document. zod's `z.int()`
 * already refuses anything outside ±(2^53 - 1) (JavaScript's safe integers), so `minimum` and
 * `maximum` are those unless the schema sets tighter ones (`.gte()`/`.lte()` before this call):
 * the document states what validation does, nothing more. `int32` when the bounds fit it.
 */
export function documentedInt<T extends z.ZodNumber>(schema: T): T {
  const minimum = schema.minValue ?? Number.MIN_SAFE_INTEGER;
  const maximum = schema.maxValue ?? Number.MAX_SAFE_INTEGER;
  const format = minimum >= -INT32_MAX - 1 && maximum <= INT32_MAX ? 'int32' : 'int64';
  return schema.openapi({ format, minimum, maximum }) as T;
}

/** A count or an integer id: never negative (responses only; a request's id keeps `z.int()`'s range). */
export const nonNegativeInt = () => documentedInt(z.int().gte(0));

/**
 * Upper bounds of strings in answers, each the real limit the code has (answers pass through their
 * schema, so a longer value would fail loudly rather than reach a client):
 * - stored: DynamoDB's item limit (400 KB); a character takes at least one byte;
 * - computed: Lambda answers at most 6 MB (text the API extracts or a model writes for the answer);
 * - ids: a prefix and at most 20 letters or digits (`agent_…`, `wh_…`), or a few joined (`key_…`);
 * - links: a presigned S3 URL with its session token, or the base URL with a path and a token;
 * - names: what the API accepts for an agent's or a campaign's name.
 */
export const MAX_STORED_CHARS = 400_000;
export const MAX_ANSWER_CHARS = 6 * 1024 * 1024;
export const MAX_ID_CHARS = 64;
export const MAX_URL_CHARS = 8192;
export const MAX_NAME_CHARS = 255;
/**
 * The knowledge box (`workflow_definition.knowledge`): text inlined into every system prompt of the
 * agent's calls, so small; larger documents belong in the knowledge base (chunked and retrieved).
 * `extract-text?purpose=knowledge` gives at most this much.
 */
export const MAX_KNOWLEDGE_TEXT_CHARS = 20_000;
/** A delivery's `webhook-id` (`msg_…`), as the `delivery_id` path parameter's pattern accepts it. */
export const MAX_MESSAGE_ID_CHARS = 204;
/** ISO 8601 as the API writes it (`2026-11-22T15:47:34.123Z`), room kept for an offset and microseconds. */
export const MAX_TIMESTAMP_CHARS = 40;
/** E.164 numbers and the SIP destinations of transfers, as `phone-number.ts` accepts them. */
export const MAX_PHONE_CHARS = 32;

/**
 * A list in an answer whose size only storage bounds: an item holds at most this many elements
 * of at least one byte each. Lists sent in requests have their own `.max()`.
 */
export const MAX_STORED_ITEMS = MAX_STORED_CHARS;

/**
 * Request strings checked by something other than a length (a time zone lookup, a row's own
 * validation later) are still bounded by the request itself: a body is at most 6,000,000 bytes
 * (MAX_BODY_BYTES), and API Gateway takes at most 10,240 bytes of request line and headers.
 */
export const MAX_REQUEST_CHARS = 6_000_000;
export const MAX_HEADER_CHARS = 10_240;
