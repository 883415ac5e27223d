import type { Context } from 'aws-lambda';
import { ConflictError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';

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
  // Powertools idempotency (about 40 KiB with its store) loads with the first keyed request, not
  // at the cold start of every request that carries no key.
  const setUp = async () => {
    const [powertools, { idempotencyStore }] = await Promise.all([
      import('@aws-lambda-powertools/idempotency'),
      import('../repositories/idempotency.ts'),
    ]);
    const config = new powertools.IdempotencyConfig({
      eventKeyJmesPath: '[organizationId, idempotencyKey]',
      payloadValidationJmesPath: 'request',
      expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
      throwOnNoIdempotencyKey: true,
    });
    const store = idempotencyStore(scope);
    // One key prefix per scope, whichever function runs the operation.
    const idempotent = powertools.makeIdempotent(
      (keyed: Keyed<R>) => operation(keyed.organizationId, keyed.request, store.recordKeyOf(keyed as never)),
      { persistenceStore: store, config, keyPrefix: scope },
    );
    return { powertools, config, idempotent };
  };
  let keyed: ReturnType<typeof setUp> | undefined;
  let lambdaContext: Context | undefined;
  const run = async (organizationId: number, idempotencyKey: string | undefined, request: R): Promise<T> => {
    if (!idempotencyKey) return operation(organizationId, request, null);
    keyed ??= setUp().catch((error: unknown) => {
      keyed = undefined;
      throw error;
    });
    const { powertools, config, idempotent } = await keyed;
    if (lambdaContext) config.registerLambdaContext(lambdaContext);
    try {
      return await idempotent({ organizationId, idempotencyKey, request });
    } catch (error) {
      if (error instanceof powertools.IdempotencyValidationError) {
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
      if (error instanceof powertools.IdempotencyAlreadyInProgressError) {
        throw new ConflictError('A request with this Idempotency-Key is still being processed; retry shortly', 1);
      }
      throw error;
    }
  };
  return Object.assign(run, {
    /** The invocation's context: Powertools keeps an in-progress record no longer than the function can run. */
    registerLambdaContext: (context: Context) => {
      lambdaContext = context;
    },
  });
}
