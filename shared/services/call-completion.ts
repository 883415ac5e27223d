import { endingOutcome } from '../domain/answering-machine.ts';
import { hasSession } from '../domain/browser-sessions.ts';
import { initialAnalysis } from '../domain/call-analysis.ts';
import { callCost, DEFAULT_DISPOSITION, wholeSeconds, type CallOutcome } from '../domain/call-outcome.ts';
import type { FlowPathStep } from '../domain/flows.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { publishCallCompleted } from '../events/call-events.ts';
import type { RunRecord, UsageRecord } from '../domain/run.ts';
import { getRun } from '../repositories/runs-read.ts';
import { listRunSms } from '../repositories/run-sms.ts';
import { smsTotals } from '../domain/text-messages.ts';
import { smsView } from './run-texts.ts';
import { type RunEnding, finishRun } from '../repositories/runs-lifecycle.ts';
import { markEventPublished } from '../repositories/runs-events.ts';
import { countCallOutcome } from '../observability/metrics.ts';

export interface CompletionReport {
  ref: RunRef;
  outcome: CallOutcome;
  endedAt: string;
  gatheredContext?: Record<string, unknown>;
  /** The path through the agent's conversation flow (none for a flat definition). */
  flow?: FlowPathStep[] | null;
  recordingKey?: string;
  transcriptKey?: string;
  /** Why the call failed, for the run's logs. */
  reason?: string;
  /** A transferred call: when the agent's part ended (platform time stops there), and the transfer leg's seconds (telephony). */
  agentEndedAt?: string;
  transferLegSeconds?: number;
  /** The realtime engine's model tokens, priced (USD). */
  speechToSpeechUsd?: number;
}

/**
 * Ends a call, whoever reports it (media service, provider callback, watchdog): run outcome and
 * duration, channel released, billing record, then `call.completed` on the event bus. Only the
 * first report of a call takes effect; later ones return false and change nothing. The outcome is
 * the reported one as the answering-machine verdict recorded before it settles it
 * (domain/answering-machine.ts): an answered call that reached a machine ends `voicemail`.
 *
 * `known` is the run as its reporter last had it, when the reporter holds it (the media service has
 * it from the stream's admission): nothing the ending needs of it changes while the call is in
 * progress (the answer time, the gathered context, what the event carries), so it is not read again.
 */
export async function completeCall(report: CompletionReport, known?: RunRecord): Promise<boolean> {
  let run = known ?? (await getRun(report.ref.organizationId, report.ref.agentId, report.ref.runId));
  // The answering-machine verdict is recorded at most once: a second attempt always settles it.
  for (let attempt = 0; attempt < 2 && run?.status === 'in_progress'; attempt += 1) {
    const finished = await finishCall(report, run);
    if (typeof finished === 'boolean') return finished;
    run = finished;
  }
  return false;
}

/**
 * Ends a browser/chat session whose credential expired before it connected: `no_answer` (the
 * disposition too), nothing billed (no time, no channel ever held), its `call.completed` published
 * like an unanswered call's. False when it connected meanwhile, or is no such session.
 */
export async function endUnconnectedSession(ref: RunRef, endedAt: string, reason: string): Promise<boolean> {
  const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
  if (run?.status !== 'created' || !hasSession(run.mode)) return false;
  return (await finishCall({ ref, outcome: 'no_answer', endedAt, reason }, run, 'created')) === true;
}

/**
 * Ends the run as it was read, its outcome decided by the answering-machine verdict read with it;
 * the run read again when a verdict came in since (the ending is then decided again).
 */
async function finishCall(
  report: CompletionReport,
  run: RunRecord,
  from: 'in_progress' | 'created' = 'in_progress',
): Promise<boolean | RunRecord> {
  const outcome = endingOutcome(report.outcome, run.answered_by);
  const byMachine = outcome !== report.outcome;
  const durationSeconds = run.answered_at ? wholeSeconds(run.answered_at, report.endedAt) : 0;
  // The texts the call sent are billed with it (a call that was never answered sent none).
  const messages = run.answered_at && run.sms_count ? await listRunSms(report.ref) : [];
  const texts = smsTotals(messages);
  const cost = callCost(durationSeconds, !hasSession(run.mode), {
    agentSeconds:
      run.answered_at && report.agentEndedAt ? wholeSeconds(run.answered_at, report.agentEndedAt) : undefined,
    transferLegSeconds: report.transferLegSeconds,
    smsUsd: texts.sms_usd,
    speechToSpeechUsd: report.speechToSpeechUsd,
  });
  const gathered = { ...run.gathered_context, ...report.gatheredContext };
  const ending: RunEnding = {
    status: outcome,
    ended_at: report.endedAt,
    duration_seconds: durationSeconds,
    gathered_context: {
      ...gathered,
      call_disposition: gathered.call_disposition ?? DEFAULT_DISPOSITION[outcome],
    },
    ...(report.flow ? { flow: report.flow } : {}),
    recording_key: report.recordingKey ?? null,
    transcript_key: report.transcriptKey ?? null,
    cost,
    // A test conversation is judged by its test run, not analysed.
    analysis: run.test ? null : initialAnalysis(run.analysis_plan, Boolean(report.transcriptKey)),
    log: {
      timestamp: report.endedAt,
      level: outcome === 'failed' ? 'ERROR' : 'INFO',
      message: byMachine
        ? `Call ended: voicemail (an answering machine answered; ${report.reason ?? report.outcome})`
        : (report.reason ?? `Call ended: ${outcome}`),
    },
  };
  const usage: UsageRecord = {
    run_id: run.id,
    workflow_id: run.workflow_id,
    status: outcome,
    started_at: run.created_at,
    ended_at: report.endedAt,
    duration_seconds: durationSeconds,
    cost_usd: cost.total_usd,
    ...(texts.sms_messages ? texts : {}),
    ...(run.test ? { test_run_id: run.test.test_run_id } : {}),
  };
  if (!(await finishRun(report.ref, ending, usage, run.answered_by, from))) {
    const now = await getRun(report.ref.organizationId, report.ref.agentId, report.ref.runId);
    return now?.status === 'in_progress' && (now.answered_by ?? null) !== (run.answered_by ?? null) ? now : false;
  }
  const { log: _log, ...changes } = ending;
  const finished: RunRecord = { ...run, ...changes, sms: messages.map(smsView) };
  countCallOutcome(outcome, Boolean(run.answered_at));
  // A test conversation reaches none of the customer's webhooks, campaigns or analysis.
  if (finished.test) return true;
  await publishCallCompleted(finished);
  // A campaign call's event is confirmed by its consumer, in the transaction applying its outcome.
  if (!finished.campaign) await markEventPublished(report.ref);
  return true;
}
