import { DomainError } from '../domain/errors.ts';
import { logger } from '../observability/logger.ts';
import { errorResult, type HttpResult } from './response.ts';
import { abbreviate } from './json-limits.ts';
import { RequestValidationError, type ValidationErrorItem } from './validation-error.ts';

/** A 422 echoes each offending input, as FastAPI does, unless that would make the answer large. */
const MAX_ECHOED_BYTES = 64 * 1024;

function echoable(items: ValidationErrorItem[]): ValidationErrorItem[] {
  if (Buffer.byteLength(JSON.stringify(items)) <= MAX_ECHOED_BYTES) return items;
  return items.map((item) => ({ ...item, input: abbreviate(item.input) }));
}

const STATUS_BY_KIND: Record<DomainError['kind'], number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  capacity: 429,
  too_large: 413,
  unsupported_media: 415,
  upstream: 502,
  unavailable: 503,
};

/** Maps anything thrown by an operation onto the `{detail}` body and status the contract gives. */
export function errorToResult(error: unknown): HttpResult {
  if (error instanceof RequestValidationError) return errorResult(422, echoable(error.items));
  if (error instanceof DomainError) {
    const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    const headers =
      retryAfter === undefined ? undefined : { 'Retry-After': String(Math.max(0, Math.ceil(retryAfter))) };
    return errorResult(STATUS_BY_KIND[error.kind], error.detail, headers);
  }
  logger.error('Unhandled error', error as Error);
  return errorResult(500, 'Internal Server Error');
}
