import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { continueEngine, engineStep, type EngineInput } from '../../shared/services/campaign-engine.ts';
import { registerIdempotencyContext } from '../../shared/services/idempotent-calls.ts';

/** Task states of statemachines/campaign-engine.asl.json. */
async function runTask(input: EngineInput & { action: 'step' | 'continue' }) {
  logger.appendKeys({ organizationId: input.campaign.organizationId, campaignId: input.campaign.campaignId, generation: input.generation });
  if (input.action === 'continue') {
    await continueEngine(input);
    return { continued: true };
  }
  const result = await engineStep(input);
  logger.debug('Campaign step', { step: input.step, result });
  return result;
}

export const handler = middy(runTask)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .before((request) => registerIdempotencyContext(request.context));
