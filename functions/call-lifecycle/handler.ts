import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import { completeCall } from '../../shared/services/call-completion.ts';
import type { CallLifecycleInput } from '../../shared/services/calls.ts';
import { dialRun, endForgottenCall } from '../../shared/services/call-control.ts';

type TaskInput = CallLifecycleInput &
  (
    { action: 'dial' } | { action: 'ensureEnded' } | { action: 'dialFailed'; error: { Error?: string; Cause?: string } }
  );

/** Task states of `statemachines/call-lifecycle.asl.json`. */
async function runTask(input: TaskInput) {
  const { call } = input;
  logger.appendKeys({ organizationId: call.ref.organizationId, runId: call.ref.runId });
  switch (input.action) {
    case 'dial': {
      const result = await dialRun(call);
      if ('callId' in result) logger.info('Dialed', { callId: result.callId });
      else logger.info('Not dialed yet', { ...result });
      return result;
    }
    case 'ensureEnded':
      return { endedByWatchdog: await endForgottenCall(call.ref) };
    case 'dialFailed': {
      logger.error('Dialing failed', { error: input.error });
      await completeCall({
        ref: call.ref,
        outcome: 'failed',
        endedAt: new Date().toISOString(),
        reason: `Dialing failed: ${input.error.Cause ?? input.error.Error ?? 'unknown error'}`,
      });
      return { failed: true };
    }
  }
}

export const handler = middy(runTask).use(injectLambdaContext(logger, { resetKeys: true }));
