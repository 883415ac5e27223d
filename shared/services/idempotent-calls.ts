import type { Context } from 'aws-lambda';
import { CALLS_IDEMPOTENCY_SCOPE } from '../repositories/keys.ts';
import type { CampaignOrigin } from '../domain/run.ts';
import { placeCall, type PlaceCallRequest } from './calls.ts';
import { keyedIdempotent } from './idempotency-key.ts';

// The run remembers its key's record, so deleting the run deletes the response kept under the key.
const keyedPlacement = keyedIdempotent(
  CALLS_IDEMPOTENCY_SCOPE,
  (
    organizationId: number,
    request: { agentRef: string; body: PlaceCallRequest; origin: CampaignOrigin | null },
    record,
  ) => placeCall(organizationId, request.agentRef, request.body, request.origin, new Date(), record),
);

/** Lets an in-progress record expire with the invocation's own time limit (Powertools' guard against a crashed first attempt). */
export const registerIdempotencyContext = (context: Context): void => keyedPlacement.registerLambdaContext(context);

/**
 * Call placement with Stripe's `Idempotency-Key` semantics: a retry returns the first response and
 * never dials twice; the same key with another request is a 422 on the header; a retry while the
 * first request is still running is a 409. Failed attempts (4xx/5xx) are not remembered, so they
 * can be retried with the same key.
 */
export async function placeCallOnce(
  organizationId: number,
  idempotencyKey: string | undefined,
  agentRef: string,
  body: PlaceCallRequest,
  origin: CampaignOrigin | null = null,
) {
  return keyedPlacement(organizationId, idempotencyKey, { agentRef, body, origin });
}
