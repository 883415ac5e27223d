import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { EventBridgeEvent } from 'aws-lambda';
import type { CallCompletedPayload } from '../../shared/events/call-events.ts';
import { logger } from '../../shared/observability/logger.ts';
import { fanOutEvent } from '../../shared/services/webhooks.ts';

/** Target of the `call.completed` rule: starts one delivery per subscribed webhook. */
async function fanOut(event: EventBridgeEvent<string, CallCompletedPayload>) {
  const { data } = event.detail;
  logger.appendKeys({ organizationId: data.organization_id, runId: data.workflow_run_id });
  const deliveries = await fanOutEvent(
    data.organization_id,
    event.detail.type,
    // One call.completed per run, however often it reaches the bus (outbox re-sends included).
    `${data.organization_id}-${data.workflow_run_id}`,
    event.detail,
    { organizationId: data.organization_id, agentId: data.workflow_id, runId: data.workflow_run_id },
  );
  logger.info('Event fanned out to webhooks', { eventType: event.detail.type, deliveries });
  return { deliveries };
}

export const handler = middy(fanOut).use(injectLambdaContext(logger, { resetKeys: true }));
