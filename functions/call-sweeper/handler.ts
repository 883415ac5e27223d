import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { requiredSetting } from '../../shared/config/settings.ts';
import { logger } from '../../shared/observability/logger.ts';
import { countMetric, METRICS } from '../../shared/observability/metrics.ts';
import { endOrphanedCalls, endUnconnectedSessions } from '../../shared/services/call-sweeper.ts';

/**
 * Run every few minutes by the schedule: a run still in progress well after the longest call
 * and its watchdog (whose execution must have failed) is ended as failed, releasing its channel;
 * a browser/chat session whose credential expired unused is ended as no_answer.
 */
const STUCK_AFTER_EXTRA_SECONDS = 15 * 60;

export const handler = middy(async () => {
  const maxCallSeconds = Number(requiredSetting('MAX_CALL_SECONDS'));
  const before = new Date(Date.now() - (maxCallSeconds + STUCK_AFTER_EXTRA_SECONDS) * 1000);
  const ended = await endOrphanedCalls(
    before,
    'The call stayed in progress past the longest call and its watchdog: ended by the sweeper',
  );
  if (ended) {
    logger.error('Ended runs stuck in progress', { ended });
    countMetric(METRICS.stuckRunsEnded, ended);
  }
  const abandoned = await endUnconnectedSessions(
    new Date(),
    'The session was never connected: its credential expired unused (ended by the sweeper)',
  );
  if (abandoned) logger.info('Ended sessions never connected', { abandoned });
  return { ended, abandoned };
}).use(injectLambdaContext(logger, { resetKeys: true }));
