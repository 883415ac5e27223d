import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { syncDueSources } from '../../shared/services/campaign-refresh.ts';

/** Run every minute by the schedule: re-syncs the campaign sources whose refresh is due. */
export const handler = middy(async () => ({ synced: await syncDueSources() })).use(
  injectLambdaContext(logger, { resetKeys: true }),
);
