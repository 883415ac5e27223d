import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { continueEngine, engineStep, type EngineInput } from '../../shared/services/campaign-engine.ts';

/** Task states of statemachines/campaign-engine.asl.json. */
async function runTask(input: EngineInput & { action: 'step' | 'continue' }) {
  logger.appendKeys({
    organizationId: input.campaign.organizationId,
    campaignId: input.campaign.campaignId,
    generation: input.generation,
  });
  if (input.action === 'continue') {
    await continueEngine(input);
    return { continued: true };
  }
  const result = await engineStep(input);
  logger.debug('Campaign step', { step: input.step, result });
  // The next step's input and when to take it (the state machine has no Pass state per step).
  const next: EngineInput & { result: typeof result } = {
    campaign: input.campaign,
    generation: input.generation,
    part: input.part,
    step: input.step + 1,
    result,
  };
  return next;
}

export const handler = middy(runTask).use(injectLambdaContext(logger, { resetKeys: true }));
