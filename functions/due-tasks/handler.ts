import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { runDueTasks } from '../../shared/services/due-tasks.ts';
import { registerIdempotencyContext } from '../../shared/services/idempotent-calls.ts';

/** Run every minute by the schedule: tasks come due (task.due) and, where their agent allows it, call. */
export const handler = middy(async () => ({ handled: await runDueTasks() }))
  .use(injectLambdaContext(logger, { resetKeys: true }))
  // A due task's call is keyed like an Idempotency-Key: its in-progress record lasts no longer than this run.
  .before((request) => registerIdempotencyContext(request.context));
