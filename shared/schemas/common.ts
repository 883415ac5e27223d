import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Adds `.openapi()` to zod schemas; must run before any schema below is built.
extendZodWithOpenApi(z);

/** Timestamps are ISO 8601 with an offset (`2026-11-22T15:47:34.123Z`). */
export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T15:47:34.123Z' });

/** Free-form JSON object (a Python `dict`). */
export const JsonObject = z.record(z.string(), z.unknown()).openapi({ type: 'object', additionalProperties: true });

export const ErrorResponse = z
  .object({ detail: z.string().openapi({ example: 'Not Found' }) })
  .openapi('ErrorResponse', { description: 'Every non-422 error: `{detail: <reason>}`.' });

export const ValidationErrorItem = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])).openapi({ example: ['body', 'retry_config', 'max_retries'] }),
    msg: z.string().openapi({ example: 'Input should be less than or equal to 5' }),
    type: z.string().openapi({ example: 'less_than_equal' }),
    input: z.unknown().optional(),
    ctx: JsonObject.optional(),
  })
  .openapi('ValidationError');

export const HTTPValidationError = z
  .object({ detail: z.array(ValidationErrorItem) })
  .openapi('HTTPValidationError', { description: "FastAPI's 422 body: one item per failed rule." });
