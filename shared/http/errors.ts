import { DomainError } from '../domain/errors.ts';
import { logger } from '../observability/logger.ts';
import { errorResult, type HttpResult } from './response.ts';
import { RequestValidationError } from './validation-error.ts';

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
  if (error instanceof RequestValidationError) return errorResult(422, error.items);
  if (error instanceof DomainError) {
    const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    const headers = retryAfter === undefined ? undefined : { 'Retry-After': String(Math.max(0, Math.ceil(retryAfter))) };
    return errorResult(STATUS_BY_KIND[error.kind], error.detail, headers);
  }
  logger.error('Unhandled error', error as Error);
  return errorResult(500, 'Internal Server Error');
}
