import { describe, expect, it, vi } from 'vitest';
import { MediaClock } from '../../media/src/call/media-clock.ts';
import { TurnLatency, turnDelays, type AnswerMark, type TurnTimeline } from '../../media/src/call/turn-latency.ts';
import { scriptedCall } from '../support/scripted-call.ts';

/** What the parts report, on the call's clock, in; each turn's timeline, out. */
type Step =
  | { at: number }
  | { turn: { speechEndMs: number; finalMs: number | null } }
  | { mark: AnswerMark }
  | { tool: string; phase: 'start' | 'end' };

function record(steps: Step[]): readonly TurnTimeline[] {
  let nowMs = 0;
  const latency = new TurnLatency({ nowMs: () => nowMs });
  for (const step of steps) {
    if ('at' in step) nowMs = step.at;
    else if ('turn' in step) latency.turn(step.turn.speechEndMs, step.turn.finalMs);
    else if ('mark' in step) latency.mark(step.mark);
    else latency.tool(step.tool, step.phase);
  }
  return latency.turns;
}

describe('turn latency (marks on the call clock)', () => {
  it.each<{ name: string; steps: Step[]; turns: TurnTimeline[] }>([
    {
      name: 'a spoken turn: from the end of speech to the first frame sent; the first of each mark counts',
      steps: [
        { at: 1400 },
        { turn: { speechEndMs: 800, finalMs: 1100 } },
        { at: 1650 },
        { mark: 'model_first_token' },
        { mark: 'first_sentence' },
        { at: 1700 },
        { mark: 'model_first_token' },
        { mark: 'first_sentence' },
        { at: 1800 },
        { mark: 'tts_first_byte' },
        { mark: 'first_frame_sent' },
        { at: 1900 },
        { mark: 'first_frame_sent' },
      ],
      turns: [
        {
          turn: 1,
          marks: {
            speech_end: 800,
            final_transcript: 1100,
            turn_decided: 1400,
            model_first_token: 1650,
            first_sentence: 1650,
            tts_first_byte: 1800,
            first_frame_sent: 1800,
          },
          tools: [],
        },
      ],
    },
    {
      name: 'tool calls, each from its start to its end',
      steps: [
        { at: 500 },
        { turn: { speechEndMs: 400, finalMs: null } },
        { tool: 'check_availability', phase: 'start' },
        { at: 900 },
        { tool: 'check_availability', phase: 'end' },
        { tool: 'end_call', phase: 'start' },
      ],
      turns: [
        {
          turn: 1,
          marks: { speech_end: 400, turn_decided: 500 },
          tools: [
            { name: 'check_availability', startMs: 500, endMs: 900 },
            { name: 'end_call', startMs: 900, endMs: null },
          ],
        },
      ],
    },
    {
      name: "what comes before the caller's first turn (the greeting) belongs to no turn; each turn has its own",
      steps: [
        { mark: 'first_frame_sent' },
        { at: 3000 },
        { turn: { speechEndMs: 2500, finalMs: 2700 } },
        { mark: 'first_frame_sent' },
        { at: 9000 },
        { turn: { speechEndMs: 8000, finalMs: 8500 } },
        { at: 9100 },
        { mark: 'first_frame_sent' },
      ],
      turns: [
        {
          turn: 1,
          marks: { speech_end: 2500, final_transcript: 2700, turn_decided: 3000, first_frame_sent: 3000 },
          tools: [],
        },
        {
          turn: 2,
          marks: { speech_end: 8000, final_transcript: 8500, turn_decided: 9000, first_frame_sent: 9100 },
          tools: [],
        },
      ],
    },
  ])('$name', ({ steps, turns }) => {
    expect(record(steps)).toEqual(turns);
  });

  it.each<{ name: string; steps: (Step | 'greets')[]; greetingMs: number | null }>([
    {
      name: 'the greeting: from the answer to its first frame sent (the first frame only)',
      steps: [
        'greets',
        { at: 412 },
        { mark: 'tts_first_byte' },
        { mark: 'first_frame_sent' },
        { at: 600 },
        { mark: 'first_frame_sent' },
      ],
      greetingMs: 412,
    },
    {
      name: 'no greeting: a frame before the first turn (a silence prompt) is not one',
      steps: [{ at: 5000 }, { mark: 'first_frame_sent' }],
      greetingMs: null,
    },
    {
      name: 'a greeting the caller spoke over before it was heard: none',
      steps: ['greets', { at: 900 }, { turn: { speechEndMs: 800, finalMs: 850 } }, { mark: 'first_frame_sent' }],
      greetingMs: null,
    },
  ])('$name', ({ steps, greetingMs }) => {
    let nowMs = 0;
    const latency = new TurnLatency({ nowMs: () => nowMs });
    for (const step of steps) {
      if (step === 'greets') latency.greets();
      else if ('at' in step) nowMs = step.at;
      else if ('turn' in step) latency.turn(step.turn.speechEndMs, step.turn.finalMs);
      else if ('mark' in step) latency.mark(step.mark);
    }
    expect(latency.greetingMs).toBe(greetingMs);
    expect(latency.result().greeting_ms).toBe(greetingMs);
  });

  it('times turns to the millisecond between media frames, never going back', () => {
    const steps: { name: string; wallMs: number; frameMs?: number; nowMs: number; preciseMs: number }[] = [
      { name: 'the first frame leads wall time by 200 ms', wallMs: 100, frameMs: 300, nowMs: 300, preciseMs: 300 },
      { name: 'between frames: nowMs stays, the precise clock goes on', wallMs: 107, nowMs: 300, preciseMs: 307 },
      { name: 'still before the next frame', wallMs: 119, nowMs: 300, preciseMs: 319 },
      { name: 'the next frame', wallMs: 120, frameMs: 320, nowMs: 320, preciseMs: 320 },
      { name: 'frames stop: time goes on', wallMs: 500, nowMs: 500, preciseMs: 700 },
      { name: 'a late frame: never back', wallMs: 501, frameMs: 340, nowMs: 501, preciseMs: 700 },
    ];
    let wall = 1_000_000;
    const clock = new MediaClock(() => wall);
    clock.start();
    for (const step of steps) {
      wall = 1_000_000 + step.wallMs;
      if (step.frameMs !== undefined) clock.reached(step.frameMs);
      expect([clock.nowMs(), clock.preciseMs()], step.name).toEqual([step.nowMs, step.preciseMs]);
    }
  });

  it("gives a turn's delays from the end of the caller's speech", () => {
    const [turn] = record([
      { at: 1400 },
      { turn: { speechEndMs: 800, finalMs: 1100 } },
      { tool: 'lookup', phase: 'start' },
      { at: 1500 },
      { tool: 'lookup', phase: 'end' },
      { at: 1650 },
      { mark: 'model_first_token' },
      { at: 1800 },
      { mark: 'first_frame_sent' },
    ]);
    expect(turnDelays(turn!)).toEqual({
      final_transcript: 300,
      turn_decided: 600,
      model_first_token: 850,
      first_sentence: null,
      tts_first_byte: null,
      first_frame_sent: 1000,
      toolsMs: 100,
    });
  });

  it("is fed by the pipeline: the caller's turn, the model, text-to-speech and the frames sent", async () => {
    const BASE = Date.parse('2026-11-26T10:00:00.000Z');
    let now = BASE;
    const call = scriptedCall(() => now, { greeting: true, speech: true });
    const { pipeline, gates } = call;
    await call.start('1.2.3');
    // The greeting's first audio comes 412 ms after the call was answered.
    now = BASE + 412;
    gates.greeting.open();
    await pipeline.idle();
    expect(pipeline.latency.greetingMs).toBe(412);
    // A second of the caller's audio, then their words (0.2-0.8 s) as a final result at 1.1 s and the end at 1.4 s.
    await call.callerAsks((ms) => (now = BASE + ms), { untilMs: 1000, finalAtMs: 1100, endAtMs: 1400 });
    now = BASE + 1650;
    gates.model.open();
    await vi.waitFor(() => expect(pipeline.latency.turns[0]?.marks.first_sentence).toBe(1650));
    now = BASE + 1800;
    gates.speech.open();
    await pipeline.idle();
    expect(pipeline.latency.turns.map(turnDelays)).toEqual([
      {
        final_transcript: 300,
        turn_decided: 600,
        model_first_token: 850,
        first_sentence: 850,
        tts_first_byte: 1000,
        first_frame_sent: 1000,
        toolsMs: 0,
      },
    ]);
    const { latency } = await pipeline.finish('closed');
    const turn = {
      turn: 1,
      at_ms: 800,
      transcription_ms: 300,
      endpointing_ms: 300,
      model_ms: 250,
      tools_ms: null,
      text_to_speech_ms: 150,
      overhead_ms: 0,
      voice_to_voice_ms: 1000,
      tools: [],
    };
    expect(latency.turns).toEqual([turn]);
    expect(latency.call).toMatchObject({
      greeting_ms: 412,
      turns: [turn],
      summary: { turn_count: 1, voice_to_voice_ms: { p50: 1000, p95: 1000 }, tools_ms: { p50: null, p95: null } },
    });
  });
});
