/**
 * Per-turn latency: the moments of each caller turn on the call's clock, from the end of the
 * caller's speech to the first frame of the answer sent, fed by the pipeline's parts (the caller's
 * turns, the brain, the reply). Kept in memory with the call; storing it is for later.
 */
import type { CallClock } from './call-types.ts';

/** What the brain and the reply report as a turn's answer takes shape (the first of each counts). */
export type AnswerMark = 'model_first_token' | 'first_sentence' | 'tts_first_byte' | 'first_frame_sent';

/** The moments of a turn, in ms of the call. */
export type TurnMark = 'speech_end' | 'final_transcript' | 'turn_decided' | AnswerMark;

/** How the parts report to the recorder (a no-op where nobody records). */
export interface LatencyTrace {
  mark(mark: AnswerMark): void;
  tool(name: string, phase: 'start' | 'end'): void;
}

export const NO_TRACE: LatencyTrace = { mark: () => {}, tool: () => {} };

export interface TurnTimeline {
  /** 1 for the caller's first turn. */
  turn: number;
  marks: Partial<Record<TurnMark, number>>;
  tools: { name: string; startMs: number; endMs: number | null }[];
}

/** The delays of a turn from the end of the caller's speech (ms), null where a mark is missing. */
export type TurnDelays = Record<Exclude<TurnMark, 'speech_end'>, number | null> & { toolsMs: number };

export class TurnLatency implements LatencyTrace {
  private readonly timelines: TurnTimeline[] = [];
  private current: TurnTimeline | null = null;

  constructor(private readonly clock: CallClock) {}

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
    this.current = { turn: this.timelines.length + 1, marks, tools: [] };
    this.timelines.push(this.current);
  }

  mark(mark: AnswerMark): void {
    if (this.current) this.current.marks[mark] ??= this.clock.nowMs();
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
