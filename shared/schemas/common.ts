import * as z from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { MAX_JSON_DEPTH, storedSize } from '../http/json-limits.ts';
import { documentedInt, MAX_ANSWER_CHARS, MAX_ID_CHARS, MAX_TIMESTAMP_CHARS } from './bounds.ts';

// Adds `.openapi()` to zod schemas; must run before any schema below is built. Only the base class
// is handed over: passing the whole `z` namespace would keep all of zod (every locale, JSON Schema
// conversion) in each Lambda bundle, since a namespace used as a value cannot be tree-shaken.
extendZodWithOpenApi({ ZodType: z.ZodType } as typeof z);

/** Timestamps are ISO 8601 with an offset (`2026-11-22T15:47:34.123Z`). */
export const Timestamp = z
  .string()
  .max(MAX_TIMESTAMP_CHARS)
  .openapi({ format: 'date-time', example: '2026-11-22T15:47:34.123Z' });

/**
 * What a name-like field (an agent's, a campaign's, a key's name, a document's title…) may not
 * hold: C0 control characters (NUL, tab, line breaks…), DEL and the C1 controls. They cannot be
 * shown in a list, a header or a CSV report, and NUL ends strings in the tools that read them.
 * A pattern, so the 422 is Pydantic's `string_pattern_mismatch` and the OpenAPI document shows it.
 * (Lone surrogates are refused for every string of a body when it is read: see json-limits.ts.)
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const NO_CONTROL_CHARACTERS = /^[^\x00-\x1F\x7F-\x9F]*$/;

/** A name-like string field: `schema` refusing control characters (see NO_CONTROL_CHARACTERS). */
export const nameText = (schema: z.ZodString): z.ZodString => schema.regex(NO_CONTROL_CHARACTERS);

/** Free-form JSON object (a Python `dict`). */
export const JsonObject = z.record(z.string(), z.unknown()).openapi({ type: 'object', additionalProperties: true });

/**
 * For rules on a whole object: like a Pydantic model validator, they run only once every field of
 * the object is valid, so a 422 lists the field items and no extra item for the whole object.
 */
export const whenFieldsValid = (payload: z.core.ParsePayload): boolean => payload.issues.length === 0;

/**
 * Caps a value by the size DynamoDB would count for it, so no write can pass the 400 KB item
 * limit: more is a 422 `value_error` at the field (Pydantic's shape for a failed validator).
 */
export function storedAtMost<T extends z.ZodType>(schema: T, maxBytes: number): T {
  const error = `at most ${maxBytes} bytes when stored`;
  return schema
    .refine((value) => storedSize(value, maxBytes) <= maxBytes, {
      message: error,
      params: { fastapi: { type: 'value_error', msg: `Value error, ${error}`, ctx: { error } } },
      when: whenFieldsValid,
    })
    .openapi({ 'x-max-stored-bytes': maxBytes } as object) as T;
}

/** A free-form object of at most `maxBytes` stored (see `storedAtMost`). */
export const freeFormObject = (maxBytes: number) =>
  storedAtMost(JsonObject, maxBytes).openapi({
    description: `Free-form object; at most ${maxBytes / 1000} kB stored, nested at most ${MAX_JSON_DEPTH} levels.`,
  });

export const ErrorResponse = z
  .object({ detail: z.string().max(MAX_ANSWER_CHARS).openapi({ example: 'Not Found' }) })
  .openapi('ErrorResponse', { description: 'Every non-422 error: `{detail: <reason>}`.' });

export const ValidationErrorItem = z
  .object({
    loc: z
      .array(z.union([z.string().max(MAX_ANSWER_CHARS), documentedInt(z.int())]))
      .max(MAX_ANSWER_CHARS)
      .openapi({ example: ['body', 'retry_config', 'max_retries'] }),
    msg: z.string().max(MAX_ANSWER_CHARS).openapi({ example: 'Input should be less than or equal to 5' }),
    type: z.string().max(MAX_ID_CHARS).openapi({ example: 'less_than_equal' }),
    input: z.unknown().optional(),
    ctx: JsonObject.optional(),
  })
  .openapi('ValidationError');

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationErrorItem).max(MAX_ANSWER_CHARS) })
  .openapi('HTTPValidationError', { description: "FastAPI's 422 body: one item per failed rule." });

/** The 409 of call placement outside calling hours: an error body, kept here so common-responses needs no phone-number parser. */
export const CallingHoursConflict = z
  .object({
    detail: z.object({
      code: z.literal('outside_calling_hours'),
      message: z.string().max(MAX_ANSWER_CHARS),
      retry_at: Timestamp.openapi({
        description: 'The next instant inside 08:00-21:00 in every time zone of the number.',
      }),
      time_zones: z.array(z.string().max(64)).max(1000),
    }),
  })
  .openapi('CallingHoursConflict');
