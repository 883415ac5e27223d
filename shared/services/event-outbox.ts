import { analysisOverdue } from '../domain/call-analysis.ts';
import { publishCallCompleted } from '../events/call-events.ts';
import { withRunSms } from './run-texts.ts';
import { listRunsWithPendingEvents } from '../repositories/runs-read.ts';
import { markEventPublished, releaseAnalyzedRun } from '../repositories/runs-events.ts';
import { abandonOverdueAnalysis } from './analysis-records.ts';

/** How long an ended run's event may stay unconfirmed before the outbox sends it again. */
const OUTBOX_GRACE_MS = 60_000;

/**
 * The outbox: a run ended (in the same transaction as its billing record) whose `call.completed`
 * was never confirmed — the process died between the two — gets its event published now.
 * Consumers are idempotent per run, so a rare second copy changes nothing. A run published while
 * its analysis was pending stays listed until the analysis is recorded; one still pending past
 * its deadline is recorded as failed, so its webhooks go. Answers how many events it published.
 */
export async function publishPendingEvents(now = new Date()): Promise<number> {
  const pending = await listRunsWithPendingEvents(new Date(now.getTime() - OUTBOX_GRACE_MS).toISOString(), 100);
  let published = 0;
  for (const run of pending) {
    const ref = { organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id };
    if (run.event_published_at) {
      // Published; the entry stayed for its analysis: released once recorded, failed past the deadline.
      if (run.analysis?.status !== 'pending') await releaseAnalyzedRun(ref);
      else if (analysisOverdue(run.ended_at, now)) await abandonOverdueAnalysis(run, now);
      continue;
    }
    await publishCallCompleted(await withRunSms(run));
    await markEventPublished(ref, now);
    published += 1;
  }
  return published;
}
