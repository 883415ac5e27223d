import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { renewDueNumbers } from '../../shared/services/number-renewals.ts';
import { pollProviderReviews } from '../../shared/services/numbers.ts';

/** Run every hour by the schedule: renews the numbers whose month has ended, and asks the provider about reviews still under way. */
export const handler = middy(async () => ({
  ...(await renewDueNumbers()),
  reviews: await pollProviderReviews(),
})).use(injectLambdaContext(logger, { resetKeys: true }));
