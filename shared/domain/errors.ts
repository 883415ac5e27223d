/**
 * Domain failures raised by services. They carry no HTTP knowledge; `shared/http/errors.ts` maps
 * each kind onto a status code, so a service reads the same in a Lambda, a CLI or a test.
 */
export abstract class DomainError extends Error {
  abstract readonly kind:
    | 'not_found'
    | 'conflict'
    | 'bad_request'
    | 'forbidden'
    | 'capacity'
    | 'unauthorized'
    | 'too_large'
    | 'unsupported_media'
    | 'upstream'
    | 'unavailable';
  /** Structured detail where the contract wants an object rather than a string. */
  readonly detail: string | Record<string, unknown>;

  constructor(detail: string | Record<string, unknown>) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
    this.name = new.target.name;
    this.detail = detail;
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

export class ConflictError extends DomainError {
  readonly kind = 'conflict';
  constructor(
    detail: string | Record<string, unknown>,
    /** Seconds after which the same request may succeed (sent as `Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

export class BadRequestError extends DomainError {
  readonly kind = 'bad_request';
}

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
}

export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized';
}

export class CapacityError extends DomainError {
  readonly kind = 'capacity';
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly kind = 'too_large';
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupported_media';
}
