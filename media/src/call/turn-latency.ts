/**
 * Per-turn latency: the moments of each caller turn on the call's clock, from the end of the
 * caller's speech to the first frame of the answer sent, fed by the pipeline's parts (the caller's
 * turns, the brain, the reply), and the greeting's delay. Kept with the call; when it ends the
 * run's `latency` is made of it (shared/domain/call-latency.ts, call-saving.ts).
 */
import { callLatency, latencyTurn, type CallLatency, type LatencyTurn } from '../../../shared/domain/call-latency.ts';
import type { TurnMark, TurnTimeline } from '../../../shared/domain/call-latency.ts';
import type { CallClock } from './call-types.ts';

export type { TurnMark, TurnTimeline };

/** What the brain and the reply report as a turn's answer takes shape (the first of each counts). */
export type AnswerMark = 'model_first_token' | 'first_sentence' | 'tts_first_byte' | 'first_frame_sent';

/** How the parts report to the recorder (a no-op where nobody records). */
export interface LatencyTrace {
  mark(mark: AnswerMark): void;
  tool(name: string, phase: 'start' | 'end'): void;
}

export const NO_TRACE: LatencyTrace = { mark: () => {}, tool: () => {} };

/** The delays of a turn from the end of the caller's speech (ms), null where a mark is missing. */
export type TurnDelays = Record<Exclude<TurnMark, 'speech_end'>, number | null> & { toolsMs: number };

export class TurnLatency implements LatencyTrace {
  private readonly timelines: TurnTimeline[] = [];
  private current: TurnTimeline | null = null;
  /** The greeting is under way and has sent no frame yet. */
  private greeting = false;
  private greetingAtMs: number | null = null;

  constructor(private readonly clock: CallClock) {}

  /** From the call answered to the first frame of the agent's greeting sent; null without one. */
  get greetingMs(): number | null {
    return this.greetingAtMs;
  }

  /** The agent starts the call talking (its first message, or the model's opening): its first frame is timed. */
  greets(): void {
    if (!this.current && this.greetingAtMs === null) this.greeting = true;
  }

  /** Every caller turn so far, in order. */
  get turns(): readonly TurnTimeline[] {
    return this.timelines;
  }

  /**
   * A caller turn was decided now: its timeline starts, from where the caller's speech ended and
   * when its last final transcript came (none for keys).
   */
  turn(speechEndMs: number, finalTranscriptMs: number | null): void {
    const marks: TurnTimeline['marks'] = { speech_end: speechEndMs, turn_decided: this.clock.nowMs() };
    if (finalTranscriptMs !== null) marks.final_transcript = finalTranscriptMs;
    this.greeting = false;
    this.current = { turn: this.timelines.length + 1, marks, tools: [] };
    this.timelines.push(this.current);
  }

  /** The turn begun last was not one (an early answer thrown away: the caller went on). */
  retract(): void {
    if (!this.current) return;
    this.timelines.splice(this.timelines.indexOf(this.current), 1);
    this.current = null;
  }

  mark(mark: AnswerMark): void {
    if (this.current) this.current.marks[mark] ??= this.clock.nowMs();
    else if (this.greeting && mark === 'first_frame_sent') {
      this.greeting = false;
      this.greetingAtMs = this.clock.nowMs();
    }
  }

  /** Each turn's components (every turn, for the agent's histograms). */
  measuredTurns(): LatencyTurn[] {
    return this.timelines.map(latencyTurn);
  }

  /** The run's `latency`: the greeting, the first turns, the summary of all. */
  result(turns: readonly LatencyTurn[] = this.measuredTurns()): CallLatency {
    return callLatency(turns, this.greetingAtMs);
  }

  /** What a call leaves: the run's `latency` and every turn's components (the agent's histograms count them all). */
  recorded(): { call: CallLatency; turns: LatencyTurn[] } {
    const turns = this.measuredTurns();
    return { call: this.result(turns), turns };
  }

  tool(name: string, phase: 'start' | 'end'): void {
    const tools = this.current?.tools;
    if (!tools) return;
    if (phase === 'start') tools.push({ name, startMs: this.clock.nowMs(), endMs: null });
    else {
      const call = tools.findLast((item) => item.name === name && item.endMs === null);
      if (call) call.endMs = this.clock.nowMs();
    }
  }
}

/** A turn's delays from the end of the caller's speech, and the time its tools took. */
export function turnDelays({ marks, tools }: TurnTimeline): TurnDelays {
  const from = marks.speech_end!;
  const after = (mark: TurnMark) => (marks[mark] === undefined ? null : marks[mark] - from);
  return {
    final_transcript: after('final_transcript'),
    turn_decided: after('turn_decided'),
    model_first_token: after('model_first_token'),
    first_sentence: after('first_sentence'),
    tts_first_byte: after('tts_first_byte'),
    first_frame_sent: after('first_frame_sent'),
    toolsMs: tools.reduce((total, tool) => total + (tool.endMs ?? tool.startMs) - tool.startMs, 0),
  };
}
