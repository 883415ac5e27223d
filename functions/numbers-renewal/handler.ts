import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { renewDueNumbers } from '../../shared/services/number-renewals.ts';

/** Run every hour by the schedule: renews the numbers whose month has ended. */
export const handler = middy(async () => renewDueNumbers()).use(injectLambdaContext(logger, { resetKeys: true }));
