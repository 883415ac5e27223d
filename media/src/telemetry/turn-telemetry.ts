/**
 * The one seam through which each turn's latency leaves the media task: when a voice call ends,
 * its report goes to every sink (latency-metrics.ts: CloudWatch metrics per agent; latency-spans.ts:
 * OpenTelemetry spans to X-Ray), from the same components the run stores
 * (shared/domain/call-latency.ts). A chat has no voice: it is not reported.
 */
import { CHAT_MODE } from '../../../shared/domain/browser-sessions.ts';
import type { LatencyTurn } from '../../../shared/domain/call-latency.ts';
import type { RunRecord } from '../../../shared/domain/run.ts';
import type { LogFn, SessionResult } from '../call/call-types.ts';

/** A voice call's latency as it ended, for telemetry. No transcript text: only times and ids. */
export interface CallLatencyReport {
  agentId: number;
  runId: number;
  /** Epoch ms of the call's clock's zero (the call answered): every `_ms` of the turns counts from it. */
  startedAtEpochMs: number;
  endedAtEpochMs: number;
  /** From the call answered to the greeting's first frame sent; null when the agent did not speak first. */
  greetingMs: number | null;
  /** Every caller turn, in order, with its components (null where a mark never happened). */
  turns: readonly LatencyTurn[];
}

export interface TurnTelemetry {
  /** The call ended: emit what it measured. Synchronous and cheap; sending is the sink's own business. */
  callEnded(report: CallLatencyReport): void;
}

/** Emits nothing (tests that do not look at telemetry say so explicitly). */
export const NO_TELEMETRY: TurnTelemetry = { callEnded: () => {} };

/** Every sink gets the report; one that throws is logged and does not stop the others or the call's save. */
export function everySink(sinks: readonly TurnTelemetry[], log: LogFn): TurnTelemetry {
  return {
    callEnded(report) {
      for (const sink of sinks) {
        try {
          sink.callEnded(report);
        } catch (error) {
          log('warn', 'turn latency telemetry not emitted', { runId: report.runId, error: String(error) });
        }
      }
    },
  };
}

/**
 * What a session that ended reports: nothing for a chat, nor for a call that measured nothing (it
 * never started, or ended before the agent or the caller spoke).
 */
export function callLatencyReport(
  run: Pick<RunRecord, 'workflow_id' | 'id' | 'mode'>,
  result: Pick<SessionResult, 'startedAt' | 'endedAt' | 'latency'>,
): CallLatencyReport | null {
  // The turns the pipeline measured once as the call ended (the run's `latency` comes from them too).
  const { turns, call } = result.latency;
  if (run.mode === CHAT_MODE || (!turns.length && call.greeting_ms === null)) return null;
  return {
    agentId: run.workflow_id,
    runId: run.id,
    startedAtEpochMs: Date.parse(result.startedAt),
    endedAtEpochMs: Date.parse(result.endedAt),
    greetingMs: call.greeting_ms,
    turns,
  };
}

/** Reports the session that ended to `telemetry`; never throws (telemetry must not fail a call's end). */
export function emitCallLatency(
  telemetry: TurnTelemetry,
  run: Pick<RunRecord, 'workflow_id' | 'id' | 'mode'>,
  result: Pick<SessionResult, 'startedAt' | 'endedAt' | 'latency'>,
  log: LogFn,
): void {
  try {
    const report = callLatencyReport(run, result);
    if (report) telemetry.callEnded(report);
  } catch (error) {
    log('warn', 'turn latency telemetry not emitted', { runId: run.id, error: String(error) });
  }
}
