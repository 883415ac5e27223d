import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../../shared/observability/logger.ts';
import * as runs from '../../shared/repositories/runs.ts';
import { completeCall } from '../../shared/services/call-completion.ts';
import type { CallLifecycleInput } from '../../shared/services/calls.ts';
import { dial } from '../../shared/telephony/provider.ts';

type TaskInput = CallLifecycleInput & ({ action: 'dial' } | { action: 'ensureEnded' } | { action: 'dialFailed'; error: { Error?: string; Cause?: string } });

function publicBaseUrl(): string {
  const url = process.env.PUBLIC_BASE_URL;
  if (!url) throw new Error('Missing required environment variable PUBLIC_BASE_URL');
  return url.replace(/\/$/, '');
}

/** Task states of `statemachines/call-lifecycle.asl.json`. */
async function runTask(input: TaskInput) {
  const { call } = input;
  logger.appendKeys({ organizationId: call.ref.organizationId, runId: call.ref.runId });
  switch (input.action) {
    case 'dial': {
      // The number comes from the run, not the execution input (which outlives a deleted run).
      const run = await runs.getRun(call.ref.organizationId, call.ref.agentId, call.ref.runId);
      if (run?.status !== 'in_progress' || !run.phone_number) {
        logger.warn('The run is no longer in progress: not dialing');
        return { callId: null };
      }
      const { callId } = await dial({
        to: run.phone_number,
        from: run.from_number ?? '',
        runRef: call.runRef,
        streamUrl: process.env.MEDIA_STREAM_URL ?? '',
        statusCallbackUrl: `${publicBaseUrl()}/telephony/status`,
      });
      await runs.updateActiveRun(call.ref, { provider_call_id: callId }, { timestamp: new Date().toISOString(), level: 'INFO', message: 'Dialing' });
      logger.info('Dialed', { callId });
      return { callId };
    }
    case 'ensureEnded': {
      const ended = await completeCall({
        ref: call.ref,
        outcome: 'failed',
        endedAt: new Date().toISOString(),
        reason: 'No completion report arrived in time: the call was ended by the watchdog',
      });
      if (ended) logger.warn('Run ended by the watchdog');
      return { endedByWatchdog: ended };
    }
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
