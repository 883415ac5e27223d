import { describe, expect, it } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import type { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { RealtimeClientEvent, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { RealtimeCall } from '../../media/src/agent/openai-realtime.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { mediaTimeline } from '../support/media-timeline.ts';
import { callInput } from '../support/voice.ts';

const BASE = Date.parse('2026-11-27T10:00:00.000Z');
/** 61 characters: 1,220 ms of the agent's speech (20 ms a character). */
const GREETING = 'Good morning, I am calling about your visit tomorrow at nine.';
/** 53 characters: 1,060 ms. */
const ANSWER = 'We open at eight on weekdays and at ten on Saturdays.';
/** The greeting's frames not played when the caller's voice paused it at 400 ms: sent again on resuming. */
const RESUMED = GREETING.length - 400 / 20;

/** What the model's session tells at a moment of the call's media clock. */
type Event =
  /** Its turn detection heard the caller's voice begin (`speech_started`) or stop (`speech_stopped`). */
  | { at: number; voice: 'started' | 'stopped' }
  /** Its transcript of the caller's turn (`…input_audio_transcription.completed`; '' for a cough). */
  | { at: number; words: string };

/**
 * A realtime call on the media clock, its session the Realtime API's events scripted as the real
 * service sends them with `create_response` and `interrupt_response` off: nothing answers or
 * stops by itself. The agent greets (an out-of-band response, GREETING), each answer is ANSWER,
 * one 20 ms frame a character.
 */
async function timeline(events: Event[], workflowConfigurations: Record<string, unknown> = {}) {
  const media = mediaTimeline(BASE);
  const sent: { event: string; media?: { timestamp?: number } }[] = [];
  const received: RealtimeClientEvent[] = [];
  const listeners: ((event: RealtimeServerEvent) => void)[] = [];
  const emit = (event: object) =>
    setImmediate(() => listeners.forEach((listener) => listener(event as RealtimeServerEvent)));
  let responses = 0;
  const socket = {
    on: (type: string, listener: (event: RealtimeServerEvent) => void) =>
      void (type === 'event' && listeners.push(listener)),
    close: () => {},
    socket: { on: () => {}, once: (type: string, open: () => void) => void (type === 'open' && setImmediate(open)) },
    send: (event: RealtimeClientEvent) => {
      received.push(event);
      if (event.type === 'session.update') emit({ type: 'session.updated', session: {} });
      if (event.type !== 'response.create') return;
      const id = `resp_${++responses}`;
      const itemId = `item_${responses}`;
      const text = event.response?.conversation === 'none' ? GREETING : ANSWER;
      const response = { id, status: 'completed', metadata: event.response?.metadata };
      emit({ type: 'response.created', response });
      const common = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
      emit({
        type: 'response.output_audio.delta',
        ...common,
        delta: Buffer.alloc(text.length * 160, 0x7f).toString('base64'),
      });
      emit({ type: 'response.output_audio_transcript.done', ...common, transcript: text });
      emit({ type: 'response.done', response });
    },
  };
  const realtime = new RealtimeCall('OpenAI Realtime', () => socket as unknown as OpenAIRealtimeWS);
  const pipeline = new CallPipeline({
    clock: media.clock,
    send: (message) => sent.push(message as (typeof sent)[number]),
    timing: { falseInterruptionMs: 50 },
    prepare: async () => ({
      plan: buildCallPlan(
        callInput({ workflowConfigurations: { first_message: GREETING, ...workflowConfigurations } }),
      ),
      organizationId: 1,
      providers: {
        stt: realtime.listener,
        tts: realtime.voice,
        realtime,
        llm: { name: 'unused', defaultModel: 'm', stream: () => (async function* () {})() },
      },
    }),
  });
  await media.start(pipeline);
  await pipeline.idle();
  const { until } = media;
  const item = `item_caller`;
  for (const event of events) {
    await until(event.at);
    if ('voice' in event)
      emit(
        event.voice === 'started'
          ? { type: 'input_audio_buffer.speech_started', item_id: item, audio_start_ms: event.at }
          : { type: 'input_audio_buffer.speech_stopped', item_id: item, audio_end_ms: event.at },
      );
    else
      emit({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: item,
        content_index: 0,
        transcript: event.words,
      });
    await tick();
    await tick();
    await pipeline.idle();
  }
  // The wait for words after the voice stopped (50 ms here) runs out on its own.
  await new Promise((resolve) => setTimeout(resolve, 60));
  await until(pipeline.playbackEndMs + 200);
  await pipeline.idle();
  const result = await pipeline.finish('closed');
  await result.recording?.dispose();
  const lines = (role: string) => result.fragments.filter((fragment) => fragment.role === role);
  const clearedAt = sent.findIndex((message) => message.event === 'clear');
  return {
    agent: lines('assistant').map((fragment) => fragment.text),
    caller: lines('user').map((fragment) => fragment.text),
    answers: received.filter((event) => event.type === 'response.create' && event.response?.conversation !== 'none')
      .length,
    truncated: received
      .filter((event) => event.type === 'conversation.item.truncate')
      .map((event) => (event as { audio_end_ms: number }).audio_end_ms),
    /** The agent's frames sent after its audio was cleared at the provider (null: never cleared). */
    afterClear: clearedAt < 0 ? null : sent.slice(clearedAt).filter((message) => message.event === 'media').length,
    /** When the greeting's last frame plays (ms from the call's start). */
    greetingEndMs: Date.parse(lines('assistant')[0]!.end!) - BASE,
  };
}

/** The caller's voice over the agent from `from` to `to` ms, as the model's turn detection tells it. */
const voice = (from: number, to: number): Event[] => [
  { at: from, voice: 'started' },
  { at: to, voice: 'stopped' },
];
/** The model answers the caller's question at 1,400 ms; the caller's voice comes 400 ms into the answer. */
const ASKED = { at: 1400, words: 'When do you open?' } satisfies Event;
/** The caller's voice at 400 ms into the greeting, then their words. */
const WHO_IS_THIS: Event[] = [...voice(400, 800), { at: 900, words: 'Wait, who is this?' }];

/** Not a cut: the greeting, paused at 400 ms, plays on `pausedMs` later; nothing is answered or truncated. */
const playedOn = (pausedMs: number, caller: string[] = []) => ({
  agent: [GREETING],
  caller,
  answers: 0,
  truncated: [],
  afterClear: RESUMED,
  greetingEndMs: GREETING.length * 20 + pausedMs,
});
/** The answer cut where the caller came in (400 ms of it heard, its item truncated there), and `words` answered. */
const answerCut = (words: string) => ({
  agent: [GREETING, /^We open at eight on$/, ANSWER],
  caller: [ASKED.words, words],
  answers: 2,
  truncated: [400],
  afterClear: ANSWER.length,
});

describe("realtime engine: the caller's voice over the agent (pause, then their words decide)", () => {
  it.each<{
    name: string;
    events: Event[];
    settings?: Record<string, unknown>;
    agent: (string | RegExp)[];
    caller: string[];
    answers: number;
    truncated: number[];
    /** The agent's frames sent after its audio was cleared (null: never paused). */
    afterClear: number | null;
    greetingEndMs?: number;
  }>([
    {
      name: 'a backchannel: the paused audio plays on, "mhm" is in the transcript, no answer',
      events: [...voice(400, 600), { at: 700, words: 'Mhm.' }],
      // Paused from 400 to 700 ms: the rest played 300 ms later.
      ...playedOn(300, ['Mhm.']),
    },
    {
      name: 'a cough (no words): the paused audio plays on, nothing is a turn',
      events: [...voice(400, 500), { at: 700, words: '' }],
      ...playedOn(300),
    },
    {
      name: 'a sound whose transcript never comes: the audio plays on once the wait for words is over',
      events: voice(400, 500),
      // The wait for words ran out with the media clock at 500 ms: paused for 100 ms.
      ...playedOn(100),
    },
    {
      name: "a real interruption of the model's answer: cut where the caller came in, its item truncated there, and it answers",
      events: [ASKED, ...voice(1800, 2200), { at: 2300, words: 'Wait, on Saturdays?' }],
      ...answerCut('Wait, on Saturdays?'),
    },
    {
      name: 'a real interruption of the greeting (said as a fixed phrase, not an item of the model): cut there, answered',
      events: WHO_IS_THIS,
      agent: [/^Good morning, I am$/, ANSWER],
      caller: ['Wait, who is this?'],
      answers: 1,
      truncated: [],
      afterClear: ANSWER.length,
    },
    {
      name: 'a disclosure (turn_taking.interruptible false): not paused, said whole, then the caller is answered',
      settings: { turn_taking: { interruptible: false } },
      events: WHO_IS_THIS,
      agent: [GREETING, ANSWER],
      caller: ['Wait, who is this?'],
      answers: 1,
      truncated: [],
      afterClear: null,
      greetingEndMs: GREETING.length * 20,
    },
    {
      name: 'an agent whose backchannels are none: "mhm" cuts it like any word',
      settings: { turn_taking: { backchannels: [] } },
      events: [ASKED, ...voice(1800, 2000), { at: 2100, words: 'Mhm.' }],
      ...answerCut('Mhm.'),
    },
  ])('$name', async ({ events, settings, agent, caller, answers, truncated, afterClear, greetingEndMs }) => {
    const result = await timeline(events, settings);
    expect(result).toMatchObject({ caller, answers, truncated, afterClear });
    expect(result.agent).toHaveLength(agent.length);
    agent.forEach((line, index) =>
      typeof line === 'string' ? expect(result.agent[index]).toBe(line) : expect(result.agent[index]).toMatch(line),
    );
    if (greetingEndMs !== undefined) expect(result.greetingEndMs).toBe(greetingEndMs);
  });
});
