import { parseRunRef } from '../domain/run-ref.ts';
import { listActiveRunsStartedBefore } from '../repositories/runs-read.ts';
import { completeCall } from './call-completion.ts';

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
