/**
 * Asks the media service to make a dialed call ready while it rings (media/src/prepare-endpoint.ts):
 * the setup read, the greeting's speech and the model's connection are then ready when the call is
 * answered, so its first words come as fast as any turn's. Best effort: a call not prepared opens
 * them on answer, so a failure here is logged, never the dial's.
 */
import { PREPARE_TOKEN_SECONDS, prepareUrl, purposeRef } from '../domain/live-call-access.ts';
import type { RunRecord } from '../domain/run.ts';
import { logger } from '../observability/logger.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';

/** The dialer waits this long at most for the media service to take the request. */
export const PREPARE_TIMEOUT_MS = 1_500;

/**
 * `run` is the run just dialed: its mode, initial context (the greeting may use them),
 * definition version, campaign goal and number (whose notes the agent reads) go with the request.
 */
export async function askMediaToPrepare(
  run: Pick<RunRecord, 'mode' | 'initial_context' | 'definition_id' | 'campaign' | 'phone_number'>,
  runRef: string,
  mediaStreamUrl: string,
): Promise<void> {
  try {
    const token = await mintStreamToken(purposeRef('prepare', runRef), PREPARE_TOKEN_SECONDS);
    const response = await fetch(prepareUrl(mediaStreamUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        run_ref: runRef,
        token,
        mode: run.mode,
        initial_context: run.initial_context,
        definition_id: run.definition_id,
        campaign_goal: run.campaign?.goal ?? null,
        phone_number: run.phone_number,
      }),
      signal: AbortSignal.timeout(PREPARE_TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => ({}))) as { status?: string; detail?: string };
    if (!response.ok || answer.status === 'full')
      logger.warn('The media service did not prepare the call: it opens what it needs on answer', {
        status: response.status,
        answer,
      });
  } catch (error) {
    logger.warn('The media service could not be asked to prepare the call', { error: String(error) });
  }
}
