import type { RunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import { updateActiveRun } from '../repositories/runs-lifecycle.ts';

/**
 * Hangs a call up at its provider, for the endings the provider does not see by itself: the agent
 * ended a call whose provider keeps it up after the media stream closes (Telnyx: the call would
 * stay up, billed, until the callee hangs up), or the watchdog ended a run whose call may still
 * be up. A call already over is not an error (the adapters say so). Never throws: a failure is
 * logged, on the run while it is in progress, since the call itself is over for the platform.
 */
export async function hangUpAtProvider(
  ref: RunRef,
  callId: string,
  why: string,
  options: { onlyWhereTheStreamKeepsTheCall?: boolean } = {},
): Promise<void> {
  try {
    // Loaded with the first hang-up: the provider SDKs are a chunk of their own.
    const { accountOf } = await import('../telephony/accounts.ts');
    const { adapter } = await accountOf(ref.organizationId);
    if (options.onlyWhereTheStreamKeepsTheCall && adapter.calls.streamEndsCall) return;
    await adapter.calls.hangUp(callId);
    // The run's log is closed once the run is complete (the watchdog's case): then only the logger has it.
    await updateActiveRun(
      ref,
      {},
      {
        timestamp: new Date().toISOString(),
        level: 'INFO',
        message: `Hung up at ${adapter.provider}: ${why}`,
      },
    );
  } catch (error) {
    logger.error('The call could not be hung up at the provider', {
      runId: ref.runId,
      callId,
      why,
      error: String(error),
    });
  }
}
