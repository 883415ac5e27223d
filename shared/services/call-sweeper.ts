import { parseRunRef } from '../domain/run-ref.ts';
import { listActiveRunsStartedBefore, listUnconnectedSessionsExpiredBefore } from '../repositories/runs-read.ts';
import { completeCall, endUnconnectedSession } from './call-completion.ts';

const BATCH = 100;

/**
 * Ends every call still marked in progress that started before `before`, as failed: on a local
 * stack restarted mid-call (its in-memory executions and media streams are gone), and on a schedule
 * everywhere (functions/call-sweeper) for runs whose watchdog execution failed.
 */
export async function endOrphanedCalls(before: Date, reason: string): Promise<number> {
  let ended = 0;
  for (;;) {
    const active = await listActiveRunsStartedBefore(before.toISOString(), BATCH);
    if (active.length === 0) return ended;
    for (const run of active) {
      const ref = parseRunRef(`${run.organization_id}.${run.workflow_id}.${run.id}`)!;
      if (await completeCall({ ref, outcome: 'failed', endedAt: new Date().toISOString(), reason })) ended += 1;
    }
    if (active.length < BATCH) return ended;
  }
}

/**
 * A session whose credential expired this long ago without connecting is ended: the grace covers
 * clocks a little apart (the media service checks the credential; a connection racing the sweeper
 * is decided by the run's status, in one conditional write each).
 */
export const UNCONNECTED_SESSION_GRACE_SECONDS = 60;

/**
 * Ends every browser/chat session whose credential expired unused (the runs repository indexes them by that
 * expiry) as `no_answer`, billed nothing: without it such a run would stay `created` for ever.
 */
export async function endUnconnectedSessions(now: Date, reason: string): Promise<number> {
  const before = new Date(now.getTime() - UNCONNECTED_SESSION_GRACE_SECONDS * 1000).toISOString();
  let ended = 0;
  for (;;) {
    const expired = await listUnconnectedSessionsExpiredBefore(before, BATCH);
    if (expired.length === 0) return ended;
    let endedNow = 0;
    for (const run of expired) {
      const ref = parseRunRef(`${run.organization_id}.${run.workflow_id}.${run.id}`)!;
      if (await endUnconnectedSession(ref, now.toISOString(), reason)) endedNow += 1;
    }
    ended += endedNow;
    // A full batch none of which could be ended (connected meanwhile: the index lags) is left for the next run.
    if (expired.length < BATCH || endedNow === 0) return ended;
  }
}
