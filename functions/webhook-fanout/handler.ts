import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { EventBridgeEvent } from 'aws-lambda';
import { logger } from '../../shared/observability/logger.ts';
import type { WebhookEvent } from '../../shared/schemas/webhook-events.ts';
import { deliveriesOf } from '../../shared/services/webhook-fanout.ts';
import { fanOutEvent } from '../../shared/services/webhooks.ts';

/** Target of the webhook event rules: starts one delivery per subscribed webhook and event. */
async function fanOut(event: EventBridgeEvent<string, WebhookEvent>) {
  const organizationId = event.detail.data.organization_id;
  logger.appendKeys({ organizationId });
  let deliveries = 0;
  for (const delivery of deliveriesOf(event.detail)) {
    deliveries += await fanOutEvent(
      organizationId,
      delivery.event.type,
      delivery.eventKey,
      delivery.event,
      delivery.run,
    );
  }
  logger.info('Event fanned out to webhooks', { eventType: event.detail.type, deliveries });
  return { deliveries };
}

export const handler = middy(fanOut).use(injectLambdaContext(logger, { resetKeys: true }));
