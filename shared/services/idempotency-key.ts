import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { ConflictError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import { idempotencyStore } from '../repositories/idempotency.ts';

/** How long a key is remembered (Stripe keeps keys 24 h). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

interface Keyed<R> {
  organizationId: number;
  idempotencyKey: string;
  /** What the key stands for: the same key with another request is refused. */
  request: R;
}

/**
 * Stripe's `Idempotency-Key` semantics for an operation (Powertools idempotency on DynamoDB): a
 * retry returns the first response and does nothing again; the same key with another request is a
 * 422 on the header; a retry while the first request still runs is a 409. Failed attempts are not
 * remembered, so they can be retried with the same key. `operation` is told the key's record
 * (null without a key), so what it creates can delete the record with itself.
 */
export function keyedIdempotent<R, T>(
  scope: string,
  operation: (organizationId: number, request: R, record: string | null) => Promise<T>,
) {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[organizationId, idempotencyKey]',
    payloadValidationJmesPath: 'request',
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    throwOnNoIdempotencyKey: true,
  });
  let idempotent: ((keyed: Keyed<R>) => Promise<T>) | undefined;
  const run = async (organizationId: number, idempotencyKey: string | undefined, request: R): Promise<T> => {
    if (!idempotencyKey) return operation(organizationId, request, null);
    if (!idempotent) {
      const store = idempotencyStore(scope);
      // One key prefix per scope, whichever function runs the operation.
      idempotent = makeIdempotent(
        (keyed: Keyed<R>) => operation(keyed.organizationId, keyed.request, store.recordKeyOf(keyed as never)),
        {
          persistenceStore: store,
          config,
          keyPrefix: scope,
        },
      );
    }
    try {
      return await idempotent({ organizationId, idempotencyKey, request });
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
  };
  return Object.assign(run, {
    registerLambdaContext: (context: Parameters<IdempotencyConfig['registerLambdaContext']>[0]) =>
      config.registerLambdaContext(context),
  });
}
