import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { attemptDelivery, type DeliveryRef } from '../../shared/services/webhooks.ts';

/** `Attempt` task of statemachines/webhook-delivery.asl.json. */
async function attempt(input: { delivery: DeliveryRef; attempt: number }) {
  logger.appendKeys({ organizationId: input.delivery.organizationId, messageId: input.delivery.messageId });
  const outcome = await attemptDelivery(input.delivery, input.attempt);
  logger.info('Webhook delivery attempt', { attempt: input.attempt, outcome });
  return outcome;
}

export const handler = middy(attempt).use(injectLambdaContext(logger, { resetKeys: true }));
