import * as z from 'zod';
import { CallingHoursConflict, ErrorResponse, HTTPValidationError } from '../schemas/common.ts';
import type { ResponseSpec } from './route.ts';
import { RETRY_AFTER } from '../openapi/standard-responses.ts';

/** Responses most private routes share, spread into each route's `responses`. */
export const UNAUTHORIZED: Record<number, ResponseSpec> = {
  401: { description: 'Missing, unknown or revoked API key', schema: ErrorResponse },
};
export const NOT_FOUND: Record<number, ResponseSpec> = {
  404: { description: 'Does not exist or belongs to another organization', schema: ErrorResponse },
};
export const VALIDATION: Record<number, ResponseSpec> = {
  422: { description: 'Validation error', schema: HTTPValidationError },
};
export const BAD_REQUEST: Record<number, ResponseSpec> = {
  400: { description: 'Bad request', schema: ErrorResponse },
};

/**
 * The 409 of call placement: `detail` is an object for calling hours and a string for every other
 * conflict (archived agent, pending number, an Idempotency-Key still in flight). Declared as one of
 * both, so a generated client parses every 409.
 */
export const CallPlacementConflict = z
  .union([CallingHoursConflict, ErrorResponse])
  .openapi(
    'CallPlacementConflict',
    { description: 'Calling hours (`detail` object with `retry_at`) or another conflict (`detail` string).' },
    { unionPreferredType: 'oneOf' },
  );
/** Routes that call the language model: its provider failing (502) or not configured (503). */
export const LANGUAGE_MODEL: Record<number, ResponseSpec> = {
  502: {
    description: 'The language model provider failed, timed out or answered nonsense; `detail` names it',
    schema: ErrorResponse,
  },
  503: {
    description: 'The platform language model is not configured; `detail` names the settings to configure',
    schema: ErrorResponse,
  },
};

/** Routes that need the platform's telephony account: not filled in yet after the first deploy (503). */
export const TELEPHONY_UNAVAILABLE: Record<number, ResponseSpec> = {
  503: {
    description:
      "The platform's telephony provider account is not configured yet; `detail` names the secret to fill in",
    schema: ErrorResponse,
  },
};

/** The refusals of call placement, in the order they are checked. */
export const CALL_PLACEMENT_ERRORS: Record<number, ResponseSpec> = {
  403: {
    description: 'The number is on the Do not call list; `detail` starts with `do_not_call`',
    schema: ErrorResponse,
  },
  409: {
    description:
      'Outside 08:00-21:00 in the recipient\'s local time (`detail` is an object with `code: "outside_calling_hours"` and `retry_at`); ' +
      'otherwise `detail` is a string: the agent is archived, the number is pending, or a request with the same Idempotency-Key is still running',
    schema: CallPlacementConflict,
    headers: {
      'Retry-After': { ...RETRY_AFTER, description: 'Seconds until calls to this number are allowed' },
    },
  },
  429: {
    description: 'Every outbound channel of the organization is busy',
    schema: ErrorResponse,
    headers: { 'Retry-After': RETRY_AFTER },
  },
};
