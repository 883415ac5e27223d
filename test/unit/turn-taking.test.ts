import { describe, expect, it } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { SpeechToTextEvents, TranscriptResult } from '../../media/src/agent/interfaces.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { BACKCHANNELS, backchannelsFor, isBackchannel } from '../../shared/domain/backchannels.ts';
import { mediaTimeline } from '../support/media-timeline.ts';
import { callInput } from '../support/voice.ts';

const BASE = Date.parse('2026-11-26T10:00:00.000Z');
/** 61 characters: 1,220 ms of the agent's speech (20 ms a character). */
const GREETING = 'Good morning, I am calling about your visit tomorrow at nine.';
const ANSWER = 'We open at 8.';

/** What the caller does at a moment of the call's media clock (their audio runs in 20 ms frames up to it). */
type Event =
  | { at: number; words: string; final?: boolean; endOfTurn?: boolean; from?: number; to?: number }
  /** A sound without words: speech-to-text's voice activity alone (a cough). */
  | { at: number; sound: true }
  | { at: number; silence: true };

/**
 * A voice call on the media clock: the agent greets with GREETING, its model answers ANSWER, speech
 * takes 20 ms a character; the caller's timeline drives speech-to-text results as Deepgram sends
 * them. Returns what the turn-taking decided.
 */
async function timeline(events: Event[], workflowConfigurations: Record<string, unknown> = {}) {
  const media = mediaTimeline(BASE);
  const sent: { event: string }[] = [];
  let recognition: SpeechToTextEvents | undefined;
  let modelCalls = 0;
  const pipeline = new CallPipeline({
    clock: media.clock,
    send: (message) => sent.push(message as { event: string }),
    prepare: async () => ({
      plan: buildCallPlan(
        callInput({ workflowConfigurations: { first_message: GREETING, ...workflowConfigurations } }),
      ),
      organizationId: 1,
      providers: {
        stt: {
          name: 'stt',
          open: async (_options, listener) => {
            recognition = listener;
            return { send: () => {}, close: async () => {} };
          },
        },
        llm: {
          name: 'llm',
          defaultModel: 'm',
          async *stream() {
            modelCalls++;
            yield { type: 'text', text: ANSWER };
          },
        },
        tts: {
          name: 'tts',
          async *stream(text) {
            yield Buffer.alloc(text.length * 160, 0x7f);
          },
        },
      },
    }),
  });
  await media.start(pipeline);
  const { until } = media;
  for (const event of events) {
    await until(event.at);
    if ('sound' in event) recognition!.speechStarted();
    else if ('words' in event) {
      const result: TranscriptResult = {
        text: event.words,
        isFinal: event.final === true || event.endOfTurn === true,
        speechFinal: event.endOfTurn === true,
        start: (event.from ?? 0) / 1000,
        end: (event.to ?? event.at) / 1000,
      };
      recognition!.transcript(result);
    }
    await tick();
    await pipeline.idle();
  }
  await until(pipeline.playbackEndMs + 200);
  await pipeline.idle();
  const result = await pipeline.finish('closed');
  await result.recording?.dispose();
  const lines = (role: string) => result.fragments.filter((fragment) => fragment.role === role);
  return {
    cleared: sent.some((message) => message.event === 'clear'),
    agent: lines('assistant').map((fragment) => fragment.text),
    caller: lines('user').map((fragment) => fragment.text),
    modelCalls,
    /** Where the agent's lines began and ended (ms from the call's start). */
    agentTimes: lines('assistant').map((fragment) => [
      Date.parse(fragment.timestamp) - BASE,
      Date.parse(fragment.end!) - BASE,
    ]),
  };
}

describe('turn-taking on caller timelines (the media clock)', () => {
  it.each<{
    name: string;
    events: Event[];
    settings?: Record<string, unknown>;
    cleared: boolean;
    agent: (string | RegExp)[];
    caller: string[];
    modelCalls: number;
  }>([
    {
      name: 'a backchannel over the agent: it goes on, the words are in the transcript, no answer',
      events: [
        { at: 400, words: 'mhm' },
        { at: 700, words: 'Mhm, okay.', endOfTurn: true, from: 300, to: 600 },
      ],
      cleared: false,
      agent: [GREETING],
      caller: ['Mhm, okay.'],
      modelCalls: 0,
    },
    {
      name: 'a real interruption: the agent stops at once, keeps what played, and answers',
      events: [
        { at: 400, words: 'wait' },
        { at: 900, words: 'Wait, who is this?', endOfTurn: true, from: 300, to: 800 },
      ],
      cleared: true,
      agent: [/^Good morning,/, ANSWER],
      caller: ['Wait, who is this?'],
      modelCalls: 1,
    },
    {
      name: 'a backchannel and then more words: the more words interrupt',
      events: [
        { at: 400, words: 'yeah' },
        { at: 600, words: 'yeah but' },
        { at: 900, words: 'Yeah, but not tomorrow.', endOfTurn: true, from: 300, to: 800 },
      ],
      cleared: true,
      agent: [/^Good morning, I am/, ANSWER],
      caller: ['Yeah, but not tomorrow.'],
      modelCalls: 1,
    },
    {
      name: 'a cough (a sound without words): the agent goes on, nothing is a turn',
      events: [{ at: 400, sound: true }],
      cleared: false,
      agent: [GREETING],
      caller: [],
      modelCalls: 0,
    },
    {
      name: 'a disclosure (turn_taking.interruptible false): said whole, then the caller is answered',
      settings: { turn_taking: { interruptible: false } },
      events: [
        { at: 400, words: 'wait' },
        { at: 900, words: 'Wait, who is this?', endOfTurn: true, from: 300, to: 800 },
      ],
      cleared: false,
      agent: [GREETING, ANSWER],
      caller: ['Wait, who is this?'],
      modelCalls: 1,
    },
    {
      name: 'a slow speaker with pauses: the finals add up into one turn, one answer',
      events: [
        { at: 1600, words: 'My number is', final: true, from: 1300, to: 1500 },
        { at: 2400, words: 'five five five,', final: true, from: 1750, to: 2300 },
        { at: 3200, words: 'one two.', final: true, from: 2800, to: 3100 },
        { at: 3400, words: '', endOfTurn: true, from: 3100, to: 3400 },
      ],
      cleared: false,
      agent: [GREETING, ANSWER],
      caller: ['My number is five five five, one two.'],
      modelCalls: 1,
    },
    {
      name: 'an agent whose backchannels are none: "mhm" stops it like any word',
      settings: { turn_taking: { backchannels: [] } },
      events: [
        { at: 400, words: 'mhm' },
        { at: 700, words: 'Mhm.', endOfTurn: true, from: 300, to: 600 },
      ],
      cleared: true,
      agent: [/^Good morning,/, ANSWER],
      caller: ['Mhm.'],
      modelCalls: 1,
    },
  ])('$name', async ({ events, settings, cleared, agent, caller, modelCalls }) => {
    const result = await timeline(events, settings);
    expect(result).toMatchObject({ cleared, caller, modelCalls });
    expect(result.agent).toHaveLength(agent.length);
    agent.forEach((line, index) =>
      typeof line === 'string' ? expect(result.agent[index]).toBe(line) : expect(result.agent[index]).toMatch(line),
    );
    if (cleared) expect(result.agent[0]!.length).toBeLessThan(GREETING.length);
  });

  it("answers a disclosure's interrupter only after the disclosure has played", async () => {
    const { agentTimes } = await timeline(
      [
        { at: 400, words: 'wait' },
        { at: 900, words: 'Wait, who is this?', endOfTurn: true, from: 300, to: 800 },
      ],
      { turn_taking: { interruptible: false } },
    );
    expect(agentTimes[0]).toEqual([0, GREETING.length * 20]);
    expect(agentTimes[1]![0]).toBeGreaterThanOrEqual(GREETING.length * 20);
  });
});

describe('backchannels', () => {
  it.each<[string, readonly string[], boolean]>([
    ['mhm', BACKCHANNELS.en!, true],
    ['Mhm, okay.', BACKCHANNELS.en!, true],
    ['Yeah yeah.', BACKCHANNELS.en!, true],
    ['I see', BACKCHANNELS.en!, true],
    ['uh-huh', BACKCHANNELS.en!, true],
    ['yeah but', BACKCHANNELS.en!, false],
    ['see', BACKCHANNELS.en!, false],
    ['', BACKCHANNELS.en!, false],
    ['No tak.', backchannelsFor('pl-PL'), true],
    ["D'accord.", backchannelsFor('fr'), true],
    ['Sì, certo.', backchannelsFor('it'), true],
    ['Genau.', backchannelsFor('de'), true],
    ['Vale.', backchannelsFor('es-ES'), true],
    ['mhm', [], false],
    ['got it', ['got it'], true],
  ])('%j with %j is a backchannel: %s', (text, list, expected) => {
    expect(isBackchannel(text, list)).toBe(expected);
  });

  it('gives a language without a list the English one', () => {
    expect(backchannelsFor('ja-JP')).toBe(BACKCHANNELS.en);
  });
});
