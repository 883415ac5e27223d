import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { EventBridgeEvent } from 'aws-lambda';
import type { CallCompletedDetail } from '../../shared/events/call-events.ts';
import { logger } from '../../shared/observability/logger.ts';
import { analyzeEndedRun } from '../../shared/services/call-analysis.ts';

/** Target of the `call.completed` rule: a run whose agent asks for a post-call analysis gets it. */
async function onCallCompleted(event: EventBridgeEvent<string, CallCompletedDetail>) {
  const { data } = event.detail;
  // Without a plan (or a transcript) there is nothing to do, and the webhooks went with the event.
  if (!data.analysis) return { analyzed: false };
  logger.appendKeys({ organizationId: data.organization_id, runId: data.workflow_run_id });
  const analyzed = await analyzeEndedRun({
    organizationId: data.organization_id,
    agentId: data.workflow_id,
    runId: data.workflow_run_id,
  });
  return { analyzed };
}

export const handler = middy(onCallCompleted).use(injectLambdaContext(logger, { resetKeys: true }));
