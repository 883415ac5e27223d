import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { EventBridgeEvent } from 'aws-lambda';
import { type CallCompletedDetail, endedCallOf } from '../../shared/events/call-events.ts';
import { logger } from '../../shared/observability/logger.ts';
import { getRun } from '../../shared/repositories/runs-read.ts';
import { markEventPublished } from '../../shared/repositories/runs-events.ts';
import { applyCallOutcome } from '../../shared/services/campaign-engine.ts';

/** Target of the `call.completed` rule: a campaign call's outcome moves its contact on. */
async function onCallCompleted(event: EventBridgeEvent<string, CallCompletedDetail>) {
  const { data } = event.detail;
  if (data.campaign_id === null) return { applied: false };
  logger.appendKeys({
    organizationId: data.organization_id,
    campaignId: data.campaign_id,
    runId: data.workflow_run_id,
  });
  // Events carry the campaign origin; one published before they did is completed from the run.
  const run = endedCallOf(event.detail) ?? (await getRun(data.organization_id, data.workflow_id, data.workflow_run_id));
  const applied = run ? await applyCallOutcome(run) : false;
  // Applied, the outcome's transaction confirmed the event; otherwise (the campaign is gone, or a
  // repeated report) the outbox entry, if any is left, goes here.
  if (!applied)
    await markEventPublished({
      organizationId: data.organization_id,
      agentId: data.workflow_id,
      runId: data.workflow_run_id,
    });
  return { applied };
}

export const handler = middy(onCallCompleted).use(injectLambdaContext(logger, { resetKeys: true }));
