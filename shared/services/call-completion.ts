import { callCost, DEFAULT_DISPOSITION, wholeSeconds, type CallOutcome } from '../domain/call-outcome.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { publishCallCompleted } from '../events/call-events.ts';
import * as runs from '../repositories/runs.ts';
import { countCallOutcome } from '../observability/metrics.ts';

export interface CompletionReport {
  ref: RunRef;
  outcome: CallOutcome;
  endedAt: string;
  gatheredContext?: Record<string, unknown>;
  recordingKey?: string;
  transcriptKey?: string;
  /** Why the call failed, for the run's logs. */
  reason?: string;
}

/**
 * Ends a call, whoever reports it (media service, provider callback, watchdog): run outcome and
 * duration, channel released, billing record, then `call.completed` on the event bus. Only the
 * first report of a call takes effect; later ones return false and change nothing.
 *
 * `known` is the run as its reporter last had it, when the reporter holds it (the media service has
 * it from the stream's admission): nothing the ending needs of it changes while the call is in
 * progress (the answer time, the gathered context, what the event carries), so it is not read again.
 */
export async function completeCall(report: CompletionReport, known?: runs.RunRecord): Promise<boolean> {
  const run = known ?? (await runs.getRun(report.ref.organizationId, report.ref.agentId, report.ref.runId));
  if (!run || run.status !== 'in_progress') return false;
  const durationSeconds = run.answered_at ? wholeSeconds(run.answered_at, report.endedAt) : 0;
  const cost = callCost(durationSeconds);
  const gathered = { ...run.gathered_context, ...report.gatheredContext };
  const ending: runs.RunEnding = {
    status: report.outcome,
    ended_at: report.endedAt,
    duration_seconds: durationSeconds,
    gathered_context: {
      ...gathered,
      call_disposition: gathered.call_disposition ?? DEFAULT_DISPOSITION[report.outcome],
    },
    recording_key: report.recordingKey ?? null,
    transcript_key: report.transcriptKey ?? null,
    cost,
    log: {
      timestamp: report.endedAt,
      level: report.outcome === 'failed' ? 'ERROR' : 'INFO',
      message: report.reason ?? `Call ended: ${report.outcome}`,
    },
  };
  const usage: runs.UsageRecord = {
    run_id: run.id,
    workflow_id: run.workflow_id,
    status: report.outcome,
    started_at: run.created_at,
    ended_at: report.endedAt,
    duration_seconds: durationSeconds,
    cost_usd: cost.total_usd,
  };
  if (!(await runs.finishRun(report.ref, ending, usage))) return false;
  const { log: _log, ...changes } = ending;
  const finished: runs.RunRecord = { ...run, ...changes };
  countCallOutcome(report.outcome, Boolean(run.answered_at));
  await publishCallCompleted(finished);
  // A campaign call's event is confirmed by its consumer, in the transaction applying its outcome.
  if (!finished.campaign) await runs.markEventPublished(report.ref);
  return true;
}

/** How long an ended run's event may stay unconfirmed before the outbox sends it again. */
const OUTBOX_GRACE_MS = 60_000;

/**
 * The outbox: a run ended (in the same transaction as its billing record) whose `call.completed`
 * was never confirmed — the process died between the two — gets its event published now.
 * Consumers are idempotent per run, so a rare second copy changes nothing.
 */
export async function publishPendingEvents(now = new Date()): Promise<number> {
  const pending = await runs.listRunsWithPendingEvents(new Date(now.getTime() - OUTBOX_GRACE_MS).toISOString(), 100);
  for (const run of pending) {
    await publishCallCompleted(run);
    await runs.markEventPublished({ organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id });
  }
  return pending.length;
}
