import { ANALYSIS_DEADLINE_MS, failedAnalysis } from '../domain/call-analysis.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { publishCallAnalyzed } from '../events/call-events.ts';
import { withRunSms } from './run-texts.ts';
import { logger } from '../observability/logger.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import type { RunRecord } from '../domain/run.ts';
import { getRun } from '../repositories/runs-read.ts';
import { recordAnalysis } from '../repositories/runs-events.ts';
import type { RunAnalysis } from '../schemas/call-analysis.ts';

/*
 * Recording a run's post-call analysis, apart from asking the model for it (call-analysis.ts), so
 * the outbox can record an abandoned one without bundling the model's client.
 */

/**
 * A pending analysis past its deadline (ANALYSIS_DEADLINE_MS): its function failed every attempt
 * (the outbox noticed). It is recorded as failed, so the run's webhooks go with the reason.
 */
export async function abandonOverdueAnalysis(run: RunRecord, now = new Date()): Promise<boolean> {
  const ref = { organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id };
  logger.error('Post-call analysis did not finish: recorded as failed', { runId: run.id });
  return settleAnalysis(
    ref,
    run,
    failedAnalysis(
      `The analysis did not finish within ${ANALYSIS_DEADLINE_MS / 60_000} minutes of the call's end (its function failed every attempt)`,
      0,
      now.toISOString(),
    ),
  );
}

/** Records `analysis` (when given) on the run and its campaign contact, then sends `call.analyzed`. */
export async function settleAnalysis(ref: RunRef, run: RunRecord, analysis: RunAnalysis | undefined): Promise<boolean> {
  let settled: RunRecord | undefined = run;
  if (analysis) {
    if (await recordAnalysis(ref, analysis)) {
      settled = { ...run, analysis };
      logger.info('Post-call analysis recorded', { status: analysis.status, attempts: analysis.attempts });
      if (run.campaign)
        await contactStore.recordContactAnalysis(ref.organizationId, run.campaign.campaign_id, run.campaign.row, {
          run_id: run.id,
          summary: analysis.summary,
          successful: analysis.success_evaluation?.successful ?? null,
          structured_data: analysis.structured_data,
        });
    } else {
      // A concurrent delivery of the event recorded it first: that one's result stands.
      settled = await getRun(ref.organizationId, ref.agentId, ref.runId);
      if (!settled?.analysis || settled.analysis.status === 'pending') return false;
    }
  }
  await publishCallAnalyzed(await withRunSms(settled));
  return true;
}
