/**
 * Where each part of a turn's latency sits on the turn's own clock (0 = the caller's end of speech),
 * the scale the waterfall shares across turns, and the days of a period: pure, so the drawing
 * components only draw.
 */
import { COMPONENTS, type ComponentKey, type LatencyPeriod, ms, type TurnLatency } from './shapes.ts';

export interface Segment {
  key: ComponentKey;
  label: string;
  start: number;
  duration: number;
}

/** Tool calls timed a little outside the model's span still fit: marks are taken on separate clocks. */
const FIT_TOLERANCE_MS = 5;

const labelOf = (key: ComponentKey): string => COMPONENTS.find((component) => component.key === key)!.label;

/**
 * The turn's segments, in time order. Model and tools share one span after endpointing: where the
 * tool calls fit in it one after another, each is drawn where it ran and the model fills the rest;
 * otherwise (overlapping calls) the model comes first and the tools after, as one segment. A call
 * started once the answer was on its way (after the span) is not part of the wait, so not drawn.
 */
export function turnSegments(turn: TurnLatency): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  const next = (key: ComponentKey, duration: number | null, label = labelOf(key)) => {
    if (duration) segments.push({ key, label, start: at, duration });
    at += duration ?? 0;
  };
  next('transcription_ms', turn.transcription_ms);
  next('endpointing_ms', turn.endpointing_ms);
  const spanStart = at;
  const spanEnd = spanStart + (turn.model_ms ?? 0) + (turn.tools_ms ?? 0);
  const calls = turn.tools.filter((call) => call.start_ms < spanEnd).sort((a, b) => a.start_ms - b.start_ms);
  const fit =
    calls.length > 0 &&
    calls.every(
      (call, index) =>
        call.start_ms >= spanStart - FIT_TOLERANCE_MS &&
        call.start_ms + call.duration_ms <= spanEnd + FIT_TOLERANCE_MS &&
        (index === 0 || call.start_ms >= calls[index - 1]!.start_ms + calls[index - 1]!.duration_ms),
    );
  if (fit) {
    for (const call of calls) {
      const start = Math.max(at, call.start_ms);
      next('model_ms', start - at);
      next('tools_ms', Math.max(0, Math.min(call.duration_ms, spanEnd - start)), `Tool ${call.name}`);
    }
    next('model_ms', spanEnd - at);
  } else {
    next('model_ms', turn.model_ms);
    next('tools_ms', turn.tools_ms, calls.length ? `Tools (${calls.map((call) => call.name).join(', ')})` : undefined);
  }
  next('text_to_speech_ms', turn.text_to_speech_ms);
  next('overhead_ms', turn.overhead_ms);
  return segments;
}

/** The end of the turn's last segment, or its voice-to-voice time if that is longer. */
export const turnLength = (turn: TurnLatency): number => {
  const last = turnSegments(turn).at(-1);
  return Math.max(turn.voice_to_voice_ms ?? 0, last ? last.start + last.duration : 0);
};

const STEPS = [50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 30_000, 60_000];

/** A round axis end at or above `longest` ms, with at most six ticks. */
export function scaleFor(longest: number): { end: number; step: number } {
  const step = STEPS.find((candidate) => Math.max(longest, 1) / candidate <= 6) ?? 60_000;
  return { end: Math.max(step, Math.ceil(longest / step) * step), step };
}

/** What a screen reader hears for a turn: its total, then each part in order, then the tool calls. */
export function describeTurn(turn: TurnLatency): string {
  const parts = COMPONENTS.map(({ key, label }) => `${label.toLowerCase()} ${ms(turn[key])}`);
  const calls = turn.tools.map((call) => `tool ${call.name} ${ms(call.duration_ms)} from ${ms(call.start_ms)}`);
  return [`Voice-to-voice ${ms(turn.voice_to_voice_ms)}: ${parts.join(', ')}`, ...calls].join('; ');
}

const DAY_MS = 86_400_000;

/** Each day from `from` to `to` (inclusive, `YYYY-MM-DD`) with its figures, `null` for a day without turns. */
export function everyDay(
  items: LatencyPeriod[],
  from: string,
  to: string,
): { day: string; figures: LatencyPeriod | null }[] {
  const byDay = new Map(items.map((item) => [item.period.slice(0, 10), item]));
  const days: { day: string; figures: LatencyPeriod | null }[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += DAY_MS) {
    const day = new Date(time).toISOString().slice(0, 10);
    days.push({ day, figures: byDay.get(day) ?? null });
  }
  return days;
}

interface TranscriptLine {
  role: 'user' | 'assistant';
  start: string;
}

/** A turn's end of speech on the wall clock: `at_ms` counts from the call answered. */
const turnTime = (answeredAt: string, turn: TurnLatency): number => Date.parse(answeredAt) + turn.at_ms;

/** For each turn, the index of the agent's line that answered it: the first one started after the caller stopped. */
export function repliesOf(
  turns: TurnLatency[],
  lines: TranscriptLine[],
  answeredAt: string | null,
): Map<number, TurnLatency> {
  const replies = new Map<number, TurnLatency>();
  if (answeredAt === null) return replies;
  for (const turn of turns) {
    const index = lines.findIndex(
      (line, at) =>
        line.role === 'assistant' && !replies.has(at) && Date.parse(line.start) >= turnTime(answeredAt, turn),
    );
    if (index >= 0) replies.set(index, turn);
  }
  return replies;
}

/** What the caller said last before the turn's end of speech, if the transcript has it. */
export function callerLineOf<Line extends TranscriptLine>(
  turn: TurnLatency,
  lines: Line[],
  answeredAt: string | null,
): Line | undefined {
  if (answeredAt === null) return undefined;
  return lines.findLast((line) => line.role === 'user' && Date.parse(line.start) <= turnTime(answeredAt, turn));
}

/** How long after a call ends its figures may still be on their way (they are written as it ends). */
export const FIGURES_GRACE_MS = 30_000;

/** A call answered and ended moments before it was read (`readAt`), without its figures yet: they may still come. */
export const figuresPending = (
  run: { answered_at: string | null; ended_at: string | null; latency?: unknown },
  readAt: number,
): boolean =>
  run.latency == null &&
  run.answered_at !== null &&
  run.ended_at !== null &&
  readAt - Date.parse(run.ended_at) < FIGURES_GRACE_MS;
