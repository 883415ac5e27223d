import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { publishPendingEvents } from '../../shared/services/event-outbox.ts';

/** Run every minute by the schedule: publishes call.completed events left unconfirmed by a crash. */
export const handler = middy(async () => {
  const published = await publishPendingEvents();
  if (published) logger.warn('Re-published unconfirmed call.completed events', { published });
  return { published };
}).use(injectLambdaContext(logger, { resetKeys: true }));
