import { describe, expect, it } from 'vitest';
import {
  callerLineOf,
  describeTurn,
  everyDay,
  FIGURES_GRACE_MS,
  figuresPending,
  repliesOf,
  scaleFor,
  turnLength,
  turnSegments,
} from '../../web/console/latency/layout.ts';
import type { LatencyPeriod, TurnLatency } from '../../web/console/latency/shapes.ts';

const turn = (overrides: Partial<TurnLatency>): TurnLatency => ({
  turn: 1,
  at_ms: 5_000,
  transcription_ms: 140,
  endpointing_ms: 310,
  model_ms: 420,
  tools_ms: null,
  text_to_speech_ms: 180,
  overhead_ms: 12,
  voice_to_voice_ms: 1_062,
  tools: [],
  ...overrides,
});

/** `label start+duration` for each segment, to read a layout at a glance. */
const drawn = (latency: TurnLatency) =>
  turnSegments(latency).map(({ label, start, duration }) => `${label} ${start}+${duration}`);

describe('turnSegments: each part where it happened on the turn’s clock', () => {
  it.each([
    {
      name: 'no tools: the parts one after another',
      latency: turn({}),
      segments: [
        'Transcription 0+140',
        'Endpointing 140+310',
        'Model 450+420',
        'Text-to-speech 870+180',
        'Overhead 1050+12',
      ],
    },
    {
      name: 'a tool call inside the model’s time: drawn where it ran, the model around it',
      latency: turn({ model_ms: 380, tools_ms: 230, tools: [{ name: 'lookup', start_ms: 520, duration_ms: 230 }] }),
      segments: [
        'Transcription 0+140',
        'Endpointing 140+310',
        'Model 450+70',
        'Tool lookup 520+230',
        'Model 750+310',
        'Text-to-speech 1060+180',
        'Overhead 1240+12',
      ],
    },
    {
      name: 'two calls in a row, the first starting at once',
      latency: turn({
        model_ms: 200,
        tools_ms: 300,
        tools: [
          { name: 'b', start_ms: 650, duration_ms: 100 },
          { name: 'a', start_ms: 450, duration_ms: 200 },
        ],
      }),
      segments: [
        'Transcription 0+140',
        'Endpointing 140+310',
        'Tool a 450+200',
        'Tool b 650+100',
        'Model 750+200',
        'Text-to-speech 950+180',
        'Overhead 1130+12',
      ],
    },
    {
      name: 'overlapping calls: the model first, then the tools as one part',
      latency: turn({
        model_ms: 300,
        tools_ms: 250,
        tools: [
          { name: 'a', start_ms: 500, duration_ms: 250 },
          { name: 'b', start_ms: 520, duration_ms: 200 },
        ],
      }),
      segments: [
        'Transcription 0+140',
        'Endpointing 140+310',
        'Model 450+300',
        'Tools (a, b) 750+250',
        'Text-to-speech 1000+180',
        'Overhead 1180+12',
      ],
    },
    {
      name: 'a call started after the first sentence was ready: not part of the wait, not drawn',
      latency: turn({
        model_ms: 380,
        tools_ms: 230,
        tools: [
          { name: 'lookup', start_ms: 520, duration_ms: 230 },
          { name: 'send_sms', start_ms: 1_200, duration_ms: 300 },
        ],
      }),
      segments: [
        'Transcription 0+140',
        'Endpointing 140+310',
        'Model 450+70',
        'Tool lookup 520+230',
        'Model 750+310',
        'Text-to-speech 1060+180',
        'Overhead 1240+12',
      ],
    },
    {
      name: 'a turn answered without speech: the missing marks are left out',
      latency: turn({ text_to_speech_ms: null, overhead_ms: null, voice_to_voice_ms: null }),
      segments: ['Transcription 0+140', 'Endpointing 140+310', 'Model 450+420'],
    },
  ])('$name', ({ latency, segments }) => {
    expect(drawn(latency)).toEqual(segments);
  });

  it('measures a turn to its last part, or its voice-to-voice time if longer', () => {
    expect(turnLength(turn({}))).toBe(1_062);
    expect(turnLength(turn({ voice_to_voice_ms: 1_500 }))).toBe(1_500);
    expect(turnLength(turn({ voice_to_voice_ms: null, overhead_ms: null }))).toBe(1_050);
  });
});

describe('scaleFor: a round axis end, at most six ticks', () => {
  it.each([
    [0, { end: 50, step: 50 }],
    [240, { end: 250, step: 50 }],
    [1_062, { end: 1_200, step: 200 }],
    [1_808, { end: 2_000, step: 500 }],
    [7_400, { end: 8_000, step: 2_000 }],
  ])('%i ms', (longest, scale) => {
    expect(scaleFor(longest)).toEqual(scale);
  });
});

it('describes a turn for a screen reader: the total, each part, each tool call', () => {
  expect(describeTurn(turn({ tools_ms: 230, tools: [{ name: 'lookup', start_ms: 520, duration_ms: 230 }] }))).toBe(
    'Voice-to-voice 1,062 ms: transcription 140 ms, endpointing 310 ms, model 420 ms, tools 230 ms, ' +
      'text-to-speech 180 ms, overhead 12 ms; tool lookup 230 ms from 520 ms',
  );
});

describe('the turns beside the transcript', () => {
  const answeredAt = '2026-11-25T10:00:00.000Z';
  const line = (role: 'user' | 'assistant', startMs: number, text = '') => ({
    role,
    text,
    start: new Date(Date.parse(answeredAt) + startMs).toISOString(),
  });
  const lines = [
    line('assistant', 400, 'greeting'),
    line('user', 3_000, 'first question'),
    line('assistant', 6_100, 'first answer'),
    line('user', 9_000, 'second question'),
    line('user', 10_500, 'more of it'),
    line('assistant', 13_000, 'second answer'),
  ];
  const turns = [turn({ turn: 1, at_ms: 5_000 }), turn({ turn: 2, at_ms: 12_000 })];

  it('finds the agent’s answer to each turn: its first line after the caller stopped', () => {
    expect([...repliesOf(turns, lines, answeredAt)].map(([index, answered]) => [index, answered.turn])).toEqual([
      [2, 1],
      [5, 2],
    ]);
    expect(repliesOf(turns, lines, null).size).toBe(0);
  });

  it('finds what the caller said last before the turn', () => {
    expect(turns.map((each) => callerLineOf(each, lines, answeredAt)?.text)).toEqual(['first question', 'more of it']);
    expect(callerLineOf(turn({ at_ms: 100 }), lines, answeredAt)).toBeUndefined();
  });
});

it('lists every day of a period, the days without turns as null', () => {
  const item = { period: '2026-11-02', agent_id: 1, turn_count: 3 } as LatencyPeriod;
  expect(everyDay([item], '2026-11-01', '2026-11-03')).toEqual([
    { day: '2026-11-01', figures: null },
    { day: '2026-11-02', figures: item },
    { day: '2026-11-03', figures: null },
  ]);
});

describe('figuresPending: a call that ended moments ago may still get its figures', () => {
  const endedAt = Date.parse('2026-11-25T10:01:00Z');
  const ended = { answered_at: '2026-11-25T10:00:00Z', ended_at: '2026-11-25T10:01:00Z' };
  it.each([
    {
      name: 'read just after it ended, without figures',
      run: { ...ended, latency: null },
      readAt: endedAt + 2_000,
      pending: true,
    },
    { name: 'the field not served yet', run: ended, readAt: endedAt + 2_000, pending: true },
    {
      name: 'read after the grace period',
      run: { ...ended, latency: null },
      readAt: endedAt + FIGURES_GRACE_MS,
      pending: false,
    },
    { name: 'with its figures', run: { ...ended, latency: {} }, readAt: endedAt + 2_000, pending: false },
    { name: 'never answered', run: { ...ended, answered_at: null, latency: null }, readAt: endedAt, pending: false },
    { name: 'not ended', run: { ...ended, ended_at: null, latency: null }, readAt: endedAt, pending: false },
  ])('$name', ({ run, readAt, pending }) => {
    expect(figuresPending(run, readAt)).toBe(pending);
  });
});
