import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttemptRef } from '../../shared/domain/agent-test-runs.ts';
import { logger } from '../../shared/observability/logger.ts';
import { recordCrashedAttempt, runAttempt } from '../../shared/services/agent-test-runner.ts';
import { completeTestRun } from '../../shared/services/agent-test-runs.ts';

type TaskInput =
  | { action: 'runCase'; attempt: AttemptRef }
  | { action: 'caseCrashed'; attempt: AttemptRef; failure: { Error?: string; Cause?: string } }
  | { action: 'complete'; run: { organization_id: number; workflow_id: number; test_run_id: number } };

/** Task states of statemachines/agent-test-run.asl.json. */
async function runTask(input: TaskInput) {
  switch (input.action) {
    case 'runCase':
      logger.appendKeys({ testRunId: input.attempt.test_run_id, testId: input.attempt.test_id });
      return runAttempt(input.attempt, {
        // On demand: the media service's speech clients (and the SDKs behind them) only for a voice case.
        callerLine: async (language) => (await import('./caller-line.ts')).callerLine(language),
      });
    case 'caseCrashed': {
      const { Error: error = 'Error', Cause: cause = '' } = input.failure ?? {};
      const reason =
        error === 'States.Timeout'
          ? 'The case exceeded the 900 s a case may take'
          : `The case failed: ${error} ${cause}`;
      await recordCrashedAttempt(input.attempt, reason.trim());
      return { recorded: true };
    }
    case 'complete':
      await completeTestRun(input.run);
      return { completed: true };
  }
}

export const handler = middy(runTask).use(injectLambdaContext(logger, { resetKeys: true }));
