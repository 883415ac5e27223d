/**
 * A call's per-turn latency, from the moments the media task marks on the call's clock
 * (media/src/call/turn-latency.ts) to the run's `latency` (docs/voice-agent.md#latency-of-each-turn):
 * each turn's components, each measured from the mark before it, and the call's p50/p95.
 */

/** The moments of a turn, in ms of the call (since it was answered). */
export type TurnMark =
  | 'speech_end'
  | 'final_transcript'
  | 'turn_decided'
  | 'model_first_token'
  | 'first_sentence'
  | 'tts_first_byte'
  | 'first_frame_sent';

/** One caller turn as recorded: its marks and each tool call (an end of null: still running at the end). */
export interface TurnTimeline {
  /** 1 for the caller's first turn. */
  turn: number;
  marks: Partial<Record<TurnMark, number>>;
  tools: { name: string; startMs: number; endMs: number | null }[];
}

/** The components of a turn, in the order they happen (they sum to `voice_to_voice_ms`). */
export const LATENCY_COMPONENTS = [
  'transcription_ms',
  'endpointing_ms',
  'model_ms',
  'tools_ms',
  'text_to_speech_ms',
  'overhead_ms',
  'voice_to_voice_ms',
] as const;
export type LatencyComponent = (typeof LATENCY_COMPONENTS)[number];

/** Turns listed on a run (its summary counts them all), and tool calls listed per turn. */
export const MAX_LATENCY_TURNS = 200;
export const MAX_TURN_TOOLS = 20;
/** A tool's name as the model sent it, cut to the longest name an agent's tool may have. */
export const MAX_TOOL_NAME_CHARS = 64;
/**
 * Distinct tool names listed in a call (an agent has far fewer tools; a model may make names up):
 * a call's further names are listed as OTHER_TOOL, so the run item stays small (200 turns of 20
 * tools of 64 characters each would be 256 KB of names).
 */
export const MAX_TOOL_NAMES = 100;
export const OTHER_TOOL = '(other)';
/** The API's int32 ceiling: a delay is never longer (a call lasts at most hours). */
export const MAX_LATENCY_MS = 2 ** 31 - 1;

export interface ToolLatency {
  name: string;
  /** From the end of the caller's speech. */
  start_ms: number;
  duration_ms: number;
}

export type LatencyTurn = { turn: number; at_ms: number } & Record<LatencyComponent, number | null> & {
    tools: ToolLatency[];
  };

export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

export type LatencySummary = { turn_count: number } & Record<LatencyComponent, Percentiles>;

/** The run's `latency`. */
export interface CallLatency {
  greeting_ms: number | null;
  turns: LatencyTurn[];
  summary: LatencySummary;
}

const ms = (value: number): number => Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(value)));

/** The length of the union of `intervals` clipped to [from, to]. */
function coveredMs(intervals: readonly { startMs: number; endMs: number }[], from: number, to: number): number {
  const clipped = intervals
    .map(({ startMs, endMs }) => ({ startMs: Math.max(startMs, from), endMs: Math.min(endMs, to) }))
    .filter(({ startMs, endMs }) => endMs > startMs)
    .sort((a, b) => a.startMs - b.startMs);
  let total = 0;
  let reached = from;
  for (const { startMs, endMs } of clipped) {
    if (endMs <= reached) continue;
    total += endMs - Math.max(startMs, reached);
    reached = endMs;
  }
  return total;
}

/**
 * A turn's components: each from the latest earlier mark that happened (a turn of keys has no
 * transcript: its endpointing counts from the end of the entry), never negative. The model's time
 * excludes the tool calls made before its first sentence, which are `tools_ms` (null: no tool
 * call). A tool still running when the call ended counts up to the turn's last mark. Marks are
 * rounded to whole ms first.
 */
export function latencyTurn({ turn, marks: measured, tools: called }: TurnTimeline): LatencyTurn {
  // Whole ms first, so that the components sum to voice-to-voice exactly.
  const marks = Object.fromEntries(
    Object.entries(measured).map(([mark, atMs]) => [mark, Math.round(atMs)]),
  ) as TurnTimeline['marks'];
  const tools = called.map((tool) => ({
    name: tool.name,
    startMs: Math.round(tool.startMs),
    endMs: tool.endMs === null ? null : Math.round(tool.endMs),
  }));
  // The end of speech comes from the provider's audio timing placed on the call's clock; the other
  // marks are that clock's readings. One placed after them (the provider's audio ahead of the clock)
  // is moved back to the earliest, so the components never overlap and sum to voice-to-voice.
  const speechEnd = Math.min(marks.speech_end ?? marks.turn_decided ?? 0, ...Object.values(marks));
  const lastMark = Math.max(speechEnd, ...Object.values(marks));
  const since = (mark: TurnMark, previous: TurnMark[]): number | null => {
    const at = marks[mark];
    if (at === undefined) return null;
    const from = previous.map((name) => marks[name]).find((value) => value !== undefined) ?? speechEnd;
    return at - from;
  };
  const toolSpans = tools.map(({ startMs, endMs }) => ({ startMs, endMs: endMs ?? Math.max(startMs, lastMark) }));
  const modelEnd = marks.first_sentence ?? marks.tts_first_byte ?? marks.first_frame_sent ?? Number.POSITIVE_INFINITY;
  const toolsMs = tools.length ? coveredMs(toolSpans, marks.turn_decided ?? speechEnd, modelEnd) : null;
  const model = since('first_sentence', ['turn_decided', 'final_transcript']);
  const nullable = (value: number | null) => (value === null ? null : ms(value));
  return {
    turn,
    at_ms: ms(speechEnd),
    transcription_ms: nullable(since('final_transcript', [])),
    endpointing_ms: nullable(since('turn_decided', ['final_transcript'])),
    model_ms: nullable(model === null ? null : model - (toolsMs ?? 0)),
    tools_ms: nullable(toolsMs),
    text_to_speech_ms: nullable(since('tts_first_byte', ['first_sentence', 'turn_decided', 'final_transcript'])),
    overhead_ms: nullable(
      since('first_frame_sent', ['tts_first_byte', 'first_sentence', 'turn_decided', 'final_transcript']),
    ),
    voice_to_voice_ms: nullable(since('first_frame_sent', [])),
    tools: toolSpans.slice(0, MAX_TURN_TOOLS).map(({ startMs, endMs }, index) => ({
      name: tools[index]!.name.slice(0, MAX_TOOL_NAME_CHARS),
      start_ms: ms(startMs - speechEnd),
      duration_ms: ms(endMs - startMs),
    })),
  };
}

/** The value at nearest rank `percent` of `values` (the smallest with at least that share at or below it). */
export function nearestRank(values: readonly number[], percent: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((percent / 100) * sorted.length)) - 1]!;
}

/** p50 and p95 of each component over `turns` (the turns without a component's mark left out of it). */
export function summarize(turns: readonly Record<LatencyComponent, number | null>[]): LatencySummary {
  const summary = { turn_count: turns.length } as LatencySummary;
  for (const component of LATENCY_COMPONENTS) {
    const values = turns.map((turn) => turn[component]).filter((value): value is number => value !== null);
    summary[component] = { p50: nearestRank(values, 50), p95: nearestRank(values, 95) };
  }
  return summary;
}

/**
 * The run's `latency` from every caller turn's timeline (in order) and the greeting's delay:
 * the first MAX_LATENCY_TURNS turns listed, the summary over all of them.
 */
export function callLatency(turns: readonly LatencyTurn[], greetingMs: number | null): CallLatency {
  const names = new Set<string>();
  const listed = (name: string) => {
    if (names.size < MAX_TOOL_NAMES) names.add(name);
    return names.has(name) ? name : OTHER_TOOL;
  };
  return {
    greeting_ms: greetingMs === null ? null : ms(greetingMs),
    turns: turns
      .slice(0, MAX_LATENCY_TURNS)
      .map((turn) => ({ ...turn, tools: turn.tools.map((tool) => ({ ...tool, name: listed(tool.name) })) })),
    summary: summarize(turns),
  };
}
