/**
 * Each turn's latency as OpenTelemetry spans, made when the call ends from the recorder's marks
 * (the call's clock, ms since it was answered, moved onto the epoch): a `call` span, a `greeting`
 * child when the agent spoke first, and a `turn` child per caller turn (from the end of the
 * caller's speech to the answer's first frame sent) whose children are its components, one after
 * the other as they happened, and its tool calls. On AWS they reach X-Ray through the collector
 * beside the task (media-telemetry.ts). Attributes are ids and times only, never what was said.
 */
import { ROOT_CONTEXT, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { LATENCY_COMPONENTS, MAX_LATENCY_TURNS, type LatencyTurn } from '../../../shared/domain/call-latency.ts';
import type { CallLatencyReport, TurnTelemetry } from './turn-telemetry.ts';

/** The components of a turn in the order they happen, each a span from where the one before ended. */
const PHASES = [
  ['transcription', 'transcription_ms'],
  ['endpointing', 'endpointing_ms'],
  ['model', 'model_ms'],
  ['text_to_speech', 'text_to_speech_ms'],
  ['overhead', 'overhead_ms'],
] as const;

export interface PhaseSpan {
  name: string;
  startMs: number;
  endMs: number;
}

/**
 * A turn's component spans on the call's clock: contiguous from the end of the caller's speech, a
 * component whose mark never happened left out (the next counts from the mark before it, as its
 * figure does). The model's span includes its tool calls (`model_ms` is net of them).
 */
export function turnPhases(turn: LatencyTurn): PhaseSpan[] {
  const phases: PhaseSpan[] = [];
  let cursor = turn.at_ms;
  for (const [name, component] of PHASES) {
    const value = turn[component];
    if (value === null) continue;
    const length = component === 'model_ms' ? value + (turn.tools_ms ?? 0) : value;
    phases.push({ name, startMs: cursor, endMs: cursor + length });
    cursor += length;
  }
  return phases;
}

export class LatencySpans implements TurnTelemetry {
  constructor(private readonly tracer: Tracer) {}

  callEnded(report: CallLatencyReport): void {
    const at = (ms: number) => new Date(report.startedAtEpochMs + ms);
    const ids: Attributes = { agent_id: report.agentId, run_id: report.runId };
    const call = this.tracer.startSpan('call', {
      root: true,
      startTime: at(0),
      attributes: {
        ...ids,
        turn_count: report.turns.length,
        ...(report.greetingMs === null ? {} : { greeting_ms: report.greetingMs }),
      },
    });
    const inCall = trace.setSpan(ROOT_CONTEXT, call);
    if (report.greetingMs !== null) this.child('greeting', inCall, at(0), at(report.greetingMs), ids);
    // As many turns as the run lists (a call's traces stay within what X-Ray shows at once).
    for (const turn of report.turns.slice(0, MAX_LATENCY_TURNS)) {
      const phases = turnPhases(turn);
      const endMs =
        turn.voice_to_voice_ms === null ? (phases.at(-1)?.endMs ?? turn.at_ms) : turn.at_ms + turn.voice_to_voice_ms;
      const attributes: Attributes = { ...ids, turn: turn.turn };
      for (const component of LATENCY_COMPONENTS) {
        const value = turn[component];
        if (value !== null) attributes[component] = value;
      }
      const span = this.tracer.startSpan('turn', { startTime: at(turn.at_ms), attributes }, inCall);
      const inTurn = trace.setSpan(ROOT_CONTEXT, span);
      for (const phase of phases) this.child(phase.name, inTurn, at(phase.startMs), at(phase.endMs), ids);
      for (const tool of turn.tools) {
        const startMs = turn.at_ms + tool.start_ms;
        this.child(`execute_tool ${tool.name}`, inTurn, at(startMs), at(startMs + tool.duration_ms), {
          ...ids,
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool.name,
        });
      }
      span.end(at(endMs));
    }
    call.end(new Date(report.endedAtEpochMs));
  }

  private child(name: string, parent: Context, start: Date, end: Date, attributes: Attributes): void {
    this.tracer.startSpan(name, { startTime: start, attributes }, parent).end(end);
  }
}
