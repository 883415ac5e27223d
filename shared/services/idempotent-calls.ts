import type { Context } from 'aws-lambda';
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyValidationError, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { ConflictError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import { CALLS_IDEMPOTENCY_SCOPE, idempotencyStore } from '../repositories/idempotency.ts';
import type { CampaignOrigin } from '../repositories/runs.ts';
import { placeCall, type PlaceCallRequest } from './calls.ts';

/** How long a key is remembered (Stripe keeps keys 24 h). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

interface KeyedPlacement {
  organizationId: number;
  idempotencyKey: string;
  /** The request the key stands for: agent and body. A different one under the same key is refused. */
  request: { agentRef: string; body: PlaceCallRequest; origin: CampaignOrigin | null };
}

const config = new IdempotencyConfig({
  eventKeyJmesPath: '[organizationId, idempotencyKey]',
  payloadValidationJmesPath: 'request',
  expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  throwOnNoIdempotencyKey: true,
});

/** Lets an in-progress record expire with the invocation's own time limit (Powertools' guard against a crashed first attempt). */
export const registerIdempotencyContext = (context: Context): void => config.registerLambdaContext(context);

let idempotentPlaceCall: ((placement: KeyedPlacement) => ReturnType<typeof placeCall>) | undefined;

function idempotentPlacement() {
  if (idempotentPlaceCall) return idempotentPlaceCall;
  const store = idempotencyStore(CALLS_IDEMPOTENCY_SCOPE);
  // The run remembers its record, so deleting the run deletes the response kept under the key.
  idempotentPlaceCall = makeIdempotent(
    (placement: KeyedPlacement) =>
      placeCall(placement.organizationId, placement.request.agentRef, placement.request.body, placement.request.origin, new Date(), store.recordKeyOf(placement as never)),
    {
      persistenceStore: store,
      config,
      // One prefix whichever function places the call (calls, triggers, campaign engine).
      keyPrefix: CALLS_IDEMPOTENCY_SCOPE,
    },
  );
  return idempotentPlaceCall;
}

/**
 * Call placement with Stripe's `Idempotency-Key` semantics (Powertools idempotency on DynamoDB):
 * a retry returns the first response and never dials twice; the same key with another request is
 * a 422 on the header; a retry while the first request is still running is a 409. Failed
 * attempts (4xx/5xx) are not remembered, so they can be retried with the same key.
 */
export async function placeCallOnce(
  organizationId: number,
  idempotencyKey: string | undefined,
  agentRef: string,
  body: PlaceCallRequest,
  origin: CampaignOrigin | null = null,
) {
  if (!idempotencyKey) return placeCall(organizationId, agentRef, body, origin);
  try {
    return await idempotentPlacement()({ organizationId, idempotencyKey, request: { agentRef, body, origin } });
  } catch (error) {
    if (error instanceof IdempotencyValidationError) {
      throw new RequestValidationError([
        {
          type: 'value_error',
          loc: ['header', 'Idempotency-Key'],
          msg: 'Value error, this Idempotency-Key was already used with a different request',
          input: idempotencyKey,
          ctx: { error: 'idempotency key reused with a different request' },
        },
      ]);
    }
    if (error instanceof IdempotencyAlreadyInProgressError) {
      throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', 1);
    }
    throw error;
  }
}
