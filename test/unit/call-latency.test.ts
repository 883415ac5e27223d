import { describe, expect, it } from 'vitest';
import {
  callLatency,
  latencyTurn,
  MAX_LATENCY_TURNS,
  MAX_TOOL_NAMES,
  MAX_TURN_TOOLS,
  nearestRank,
  OTHER_TOOL,
  summarize,
  type LatencyTurn,
  type TurnTimeline,
} from '../../shared/domain/call-latency.ts';
import {
  addHistogram,
  bucketOf,
  bucketValue,
  emptyHistogram,
  histogramIncrements,
  histogramPercentile,
  LATENCY_BUCKET_STARTS,
  latencyReport,
} from '../../shared/domain/latency-histograms.ts';
import { packLatency, unpackLatency } from '../../shared/repositories/run-latency.ts';
import { NO_COMPONENTS } from '../support/latency-turns.ts';

describe("a turn's components, each from the mark before it", () => {
  it.each<{ name: string; timeline: TurnTimeline; turn: Partial<LatencyTurn> }>([
    {
      name: 'a spoken turn with every mark: the components sum to voice-to-voice',
      timeline: {
        turn: 1,
        marks: {
          speech_end: 5320,
          final_transcript: 5460,
          turn_decided: 5770,
          model_first_token: 6000,
          first_sentence: 6190,
          tts_first_byte: 6370,
          first_frame_sent: 6382,
        },
        tools: [],
      },
      turn: {
        turn: 1,
        at_ms: 5320,
        transcription_ms: 140,
        endpointing_ms: 310,
        model_ms: 420,
        tools_ms: null,
        text_to_speech_ms: 180,
        overhead_ms: 12,
        voice_to_voice_ms: 1062,
        tools: [],
      },
    },
    {
      name: "a tool before the first sentence is the tools' time, not the model's",
      timeline: {
        turn: 2,
        marks: {
          speech_end: 1000,
          final_transcript: 1100,
          turn_decided: 1400,
          first_sentence: 2300,
          tts_first_byte: 2450,
          first_frame_sent: 2460,
        },
        tools: [{ name: 'lookup_order', startMs: 1520, endMs: 1750 }],
      },
      turn: {
        transcription_ms: 100,
        endpointing_ms: 300,
        model_ms: 670,
        tools_ms: 230,
        text_to_speech_ms: 150,
        overhead_ms: 10,
        voice_to_voice_ms: 1460,
        tools: [{ name: 'lookup_order', start_ms: 520, duration_ms: 230 }],
      },
    },
    {
      name: 'a tool after the first sentence ("let me check") delays nothing: listed, tools_ms 0',
      timeline: {
        turn: 1,
        marks: { speech_end: 0, final_transcript: 100, turn_decided: 300, first_sentence: 700, first_frame_sent: 900 },
        tools: [{ name: 'lookup', startMs: 800, endMs: 2000 }],
      },
      turn: {
        model_ms: 400,
        tools_ms: 0,
        text_to_speech_ms: null,
        overhead_ms: 200,
        voice_to_voice_ms: 900,
        tools: [{ name: 'lookup', start_ms: 800, duration_ms: 1200 }],
      },
    },
    {
      name: 'overlapping tool calls count once; one still running at the end counts to the last mark',
      timeline: {
        turn: 1,
        marks: { speech_end: 0, turn_decided: 100, first_sentence: 1000, first_frame_sent: 1100 },
        tools: [
          { name: 'a', startMs: 200, endMs: 500 },
          { name: 'b', startMs: 400, endMs: 600 },
          { name: 'end_call', startMs: 1050, endMs: null },
        ],
      },
      turn: {
        transcription_ms: null,
        endpointing_ms: 100,
        model_ms: 500,
        tools_ms: 400,
        tools: [
          { name: 'a', start_ms: 200, duration_ms: 300 },
          { name: 'b', start_ms: 400, duration_ms: 200 },
          { name: 'end_call', start_ms: 1050, duration_ms: 50 },
        ],
      },
    },
    {
      name: 'keys (no transcript): endpointing from the end of the entry; a chat (no audio): overhead from the sentence',
      timeline: {
        turn: 3,
        marks: { speech_end: 2000, turn_decided: 4000, first_sentence: 4500, first_frame_sent: 4501 },
        tools: [],
      },
      turn: {
        at_ms: 2000,
        transcription_ms: null,
        endpointing_ms: 2000,
        model_ms: 500,
        text_to_speech_ms: null,
        overhead_ms: 1,
        voice_to_voice_ms: 2501,
      },
    },
    {
      name: 'an answer cut before it was heard: the marks it reached, the rest null',
      timeline: { turn: 1, marks: { speech_end: 10.4, final_transcript: 99.6, turn_decided: 250 }, tools: [] },
      turn: { ...NO_COMPONENTS, at_ms: 10, transcription_ms: 90, endpointing_ms: 150, tools: [] },
    },
    {
      name: 'marks off the millisecond: rounded first, so the components still sum to voice-to-voice',
      timeline: {
        turn: 1,
        marks: {
          speech_end: 100.4,
          final_transcript: 200.4,
          turn_decided: 300.4,
          first_sentence: 400.4,
          tts_first_byte: 500.4,
          first_frame_sent: 600.6,
        },
        tools: [],
      },
      turn: {
        transcription_ms: 100,
        endpointing_ms: 100,
        model_ms: 100,
        text_to_speech_ms: 100,
        overhead_ms: 101,
        voice_to_voice_ms: 501,
      },
    },
    {
      name: 'a transcript stamped before the end of speech: the end of speech moved back to it, never negative',
      timeline: { turn: 1, marks: { speech_end: 500, final_transcript: 450, turn_decided: 600 }, tools: [] },
      turn: { at_ms: 450, transcription_ms: 0, endpointing_ms: 150 },
    },
    {
      name: "an end of speech placed after the turn was decided (a realtime model's audio ahead of the clock): the components still sum",
      timeline: {
        turn: 1,
        marks: {
          speech_end: 5010,
          final_transcript: 5000,
          turn_decided: 5003,
          model_first_token: 5040,
          first_sentence: 5040,
          tts_first_byte: 5044,
          first_frame_sent: 5044,
        },
        tools: [],
      },
      turn: {
        at_ms: 5000,
        transcription_ms: 0,
        endpointing_ms: 3,
        model_ms: 37,
        text_to_speech_ms: 4,
        overhead_ms: 0,
        voice_to_voice_ms: 44,
      },
    },
  ])('$name', ({ timeline, turn }) => {
    expect(latencyTurn(timeline)).toMatchObject(turn);
  });

  it(`lists ${MAX_TURN_TOOLS} tool calls of a turn and counts them all; names cut to 64 characters`, () => {
    const tools = Array.from({ length: 25 }, (_, index) => ({
      name: `tool_${index}_${'x'.repeat(80)}`,
      startMs: 100 + index * 10,
      endMs: 105 + index * 10,
    }));
    const turn = latencyTurn({ turn: 1, marks: { speech_end: 0, turn_decided: 50, first_sentence: 1000 }, tools });
    expect(turn.tools).toHaveLength(MAX_TURN_TOOLS);
    expect(turn.tools[0]!.name).toHaveLength(64);
    expect(turn.tools_ms).toBe(25 * 5);
  });
});

describe('nearest-rank percentiles', () => {
  it.each<{ values: number[]; percent: number; expected: number | null }>([
    { values: [], percent: 50, expected: null },
    { values: [7], percent: 95, expected: 7 },
    { values: [4, 1, 3, 2], percent: 50, expected: 2 },
    { values: [1, 2, 3, 4, 5], percent: 50, expected: 3 },
    { values: Array.from({ length: 20 }, (_, i) => i + 1), percent: 95, expected: 19 },
    { values: Array.from({ length: 21 }, (_, i) => i + 1), percent: 95, expected: 20 },
    { values: Array.from({ length: 100 }, (_, i) => 100 - i), percent: 95, expected: 95 },
  ])('p$percent of $values.length values is $expected', ({ values, percent, expected }) => {
    expect(nearestRank(values, percent)).toBe(expected);
  });

  it('summarizes each component over the turns that have it', () => {
    const turns = [
      { ...NO_COMPONENTS, voice_to_voice_ms: 900, tools_ms: 200 },
      { ...NO_COMPONENTS, voice_to_voice_ms: 1100 },
      { ...NO_COMPONENTS, voice_to_voice_ms: 1000 },
    ];
    expect(summarize(turns)).toMatchObject({
      turn_count: 3,
      voice_to_voice_ms: { p50: 1000, p95: 1100 },
      tools_ms: { p50: 200, p95: 200 },
      model_ms: { p50: null, p95: null },
    });
  });
});

const turnOf = (turn: number, voiceToVoice: number, tools: LatencyTurn['tools'] = []): LatencyTurn => ({
  ...NO_COMPONENTS,
  turn,
  at_ms: turn * 1000,
  voice_to_voice_ms: voiceToVoice,
  tools,
});

describe("the run's latency", () => {
  it(`lists the first ${MAX_LATENCY_TURNS} turns; the summary counts them all`, () => {
    const turns = Array.from({ length: 250 }, (_, index) => turnOf(index + 1, index + 1));
    const latency = callLatency(turns, 412.4);
    expect(latency.greeting_ms).toBe(412);
    expect(latency.turns).toHaveLength(MAX_LATENCY_TURNS);
    expect(latency.turns.at(-1)!.turn).toBe(MAX_LATENCY_TURNS);
    expect(latency.summary).toMatchObject({ turn_count: 250, voice_to_voice_ms: { p50: 125, p95: 238 } });
  });

  it(`names at most ${MAX_TOOL_NAMES} distinct tools in a call; the rest as ${OTHER_TOOL}`, () => {
    const turns = Array.from({ length: 6 }, (_, turn) =>
      turnOf(
        turn + 1,
        1000,
        Array.from({ length: 20 }, (_, index) => ({ name: `tool_${turn * 20 + index}`, start_ms: 0, duration_ms: 1 })),
      ),
    );
    const names = callLatency(turns, null).turns.flatMap((turn) => turn.tools.map((tool) => tool.name));
    expect(new Set(names).size).toBe(MAX_TOOL_NAMES + 1);
    expect(names.slice(MAX_TOOL_NAMES)).toEqual(Array(20).fill(OTHER_TOOL));
    expect(names[MAX_TOOL_NAMES - 1]).toBe(`tool_${MAX_TOOL_NAMES - 1}`);
  });
});

/** An item attribute's size as DynamoDB counts it (docs: "Item sizes and formats"). */
function dynamoSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/^0\./, '').length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + 1 + dynamoSize(element), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + dynamoSize(element),
      0,
    )
  );
}

describe("the run item's compact latency", () => {
  it('reads back as it was written', () => {
    const latency = callLatency(
      [
        turnOf(1, 1062, [
          { name: 'lookup_order', start_ms: 520, duration_ms: 230 },
          { name: 'end_call', start_ms: 900, duration_ms: 0 },
        ]),
        turnOf(2, 800, [{ name: 'lookup_order', start_ms: 100, duration_ms: 50 }]),
        turnOf(3, 700),
      ],
      null,
    );
    const stored = packLatency(latency);
    expect(stored.tool_names).toEqual(['lookup_order', 'end_call']);
    expect(unpackLatency(structuredClone(stored))).toEqual(latency);
  });

  it('stays well under the 400 KB item limit at 200 turns of 20 tools with 64-character names', () => {
    const big = (turn: number, at: number) => 100_000 + turn * 1000 + at;
    const turns = Array.from({ length: 300 }, (_, index) => ({
      ...Object.fromEntries(Object.keys(NO_COMPONENTS).map((name, at) => [name, big(index, at)])),
      turn: index + 1,
      at_ms: 3_000_000 + index,
      tools: Array.from({ length: MAX_TURN_TOOLS }, (_, tool) => ({
        name: `t${String(index * MAX_TURN_TOOLS + tool).padStart(63, '_')}`,
        start_ms: big(index, tool),
        duration_ms: big(index, tool),
      })),
    })) as LatencyTurn[];
    const latency = callLatency(turns, 123_456);
    const bytes = dynamoSize({ latency: packLatency(latency) });
    expect(bytes).toBeLessThan(80_000);
    // The API's shape of the same takes about three times as much: why the item keeps the compact one.
    expect(dynamoSize({ latency })).toBeGreaterThan(2.5 * bytes);
  });
});

describe('the agents’ histograms', () => {
  it('has fixed log-scale buckets: a value read back within 1 ms up to 16 ms, 5.6 % up to 100 ms, 4.6 % above', () => {
    expect(LATENCY_BUCKET_STARTS.slice(0, 17)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17]);
    expect(LATENCY_BUCKET_STARTS).toHaveLength(120);
    expect(LATENCY_BUCKET_STARTS.at(-1)).toBe(131_072);
    const worst = { upTo16Ms: 0, upTo100Ms: 0, above: 0 };
    for (let value = 1; value < 131_072; value += 1) {
      const error = Math.abs(bucketValue(bucketOf(value)) - value);
      if (value <= 16) worst.upTo16Ms = Math.max(worst.upTo16Ms, error);
      else if (value < 100) worst.upTo100Ms = Math.max(worst.upTo100Ms, error / value);
      else worst.above = Math.max(worst.above, error / value);
    }
    expect(worst.upTo16Ms).toBe(1);
    expect(worst.upTo100Ms).toBeLessThanOrEqual(0.0556);
    expect(worst.above).toBeLessThanOrEqual(0.0454);
  });

  it.each<[number, number, number]>([
    // value, its bucket, what the bucket reports
    [0, 0, 0],
    [1, 1, 1],
    [14, 14, 14],
    [15, 14, 14],
    [16, 15, 16],
    [1062, bucketOf(1024), 1069],
    [131_071, LATENCY_BUCKET_STARTS.length - 2, 125_632],
    [5_000_000, LATENCY_BUCKET_STARTS.length - 1, 131_072],
  ])('%i ms goes in bucket %i, read back as %i', (value, bucket, reported) => {
    expect(bucketOf(value)).toBe(bucket);
    expect(bucketValue(bucket)).toBe(reported);
  });

  it("counts each turn's components where it has them", () => {
    const increments = histogramIncrements([{ ...turnOf(1, 1062), tools_ms: 230 }, turnOf(2, 1062), turnOf(3, 5)]);
    expect(increments.turn_count).toBe(3);
    expect(increments.counts.voice_to_voice_ms).toEqual({ [bucketOf(1062)]: 2, 5: 1 });
    expect(increments.counts.tools_ms).toEqual({ [bucketOf(230)]: 1 });
    expect(increments.counts.model_ms).toEqual({});
  });

  it('reads nearest-rank percentiles back from merged days, as exact as a bucket', () => {
    const values = Array.from({ length: 200 }, (_, index) => 300 + index * 7);
    const days = [values.slice(0, 60), values.slice(60)].map((part) =>
      histogramIncrements(part.map((value, index) => turnOf(index + 1, value))),
    );
    const merged = days.reduce(addHistogram, emptyHistogram());
    expect(merged.turn_count).toBe(200);
    for (const percent of [50, 95]) {
      const exact = nearestRank(values, percent)!;
      const read = histogramPercentile(merged.counts.voice_to_voice_ms, percent)!;
      expect(bucketOf(read)).toBe(bucketOf(exact));
      expect(Math.abs(read - exact) / exact).toBeLessThan(0.09);
    }
    expect(histogramPercentile({}, 50)).toBeNull();
  });

  it('reports one item per period and agent with turns, by period then agent', () => {
    const day = (voiceToVoice: number[]) =>
      histogramIncrements(voiceToVoice.map((value, index) => turnOf(index + 1, value)));
    const days = [
      { day: '2026-11-25', agent_id: 12, histogram: day([1000, 1000]) },
      { day: '2026-11-24', agent_id: 12, histogram: day([500]) },
      { day: '2026-11-25', agent_id: 3, histogram: day([200]) },
      { day: '2026-11-25', agent_id: 4, histogram: emptyHistogram() },
      { day: '2026-12-01', agent_id: 12, histogram: day([2000]) },
    ];
    expect(
      latencyReport(days, 'day').map(({ period, agent_id, turn_count }) => [period, agent_id, turn_count]),
    ).toEqual([
      ['2026-11-24', 12, 1],
      ['2026-11-25', 3, 1],
      ['2026-11-25', 12, 2],
      ['2026-12-01', 12, 1],
    ]);
    const months = latencyReport(days, 'month');
    expect(months.map(({ period, agent_id, turn_count }) => [period, agent_id, turn_count])).toEqual([
      ['2026-11', 3, 1],
      ['2026-11', 12, 3],
      ['2026-12', 12, 1],
    ]);
    expect(months[1]).toMatchObject({
      voice_to_voice_ms: { p50: bucketValue(bucketOf(1000)), p95: bucketValue(bucketOf(1000)) },
      model_ms: { p50: null, p95: null },
    });
  });
});
