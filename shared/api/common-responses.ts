import { ErrorResponse, HTTPValidationError } from '../schemas/common.ts';
import type { ResponseSpec } from './route.ts';

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
