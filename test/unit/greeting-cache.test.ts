import { describe, expect, it } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { SpeechAhead } from '../../media/src/agent/early-providers.ts';
import {
  GREETING_CACHE_LIMITS,
  GreetingCache,
  greetingSpeech,
  type KeptSpeech,
} from '../../media/src/agent/greeting-cache.ts';
import type { TextToSpeech } from '../../media/src/agent/interfaces.ts';
import { callInput } from '../support/voice.ts';

/** A synthesis settled by the test: `finish(bytes)` whole, `fail()` not. */
function synthesis() {
  let settle!: (whole: boolean) => void;
  const speech = {
    bytes: 0,
    synthesized: new Promise<boolean>((resolve) => (settle = resolve)),
    finish(bytes: number) {
      speech.bytes = bytes;
      settle(true);
    },
    fail: () => settle(false),
  };
  return speech;
}
type Synthesis = ReturnType<typeof synthesis>;

const settledNow = () => new Promise((resolve) => setImmediate(resolve));

function cache(limits: Partial<typeof GREETING_CACHE_LIMITS> = {}) {
  let now = 0;
  const made: Synthesis[] = [];
  const greetings = new GreetingCache<KeptSpeech & Synthesis>({ ...GREETING_CACHE_LIMITS, ...limits }, () => now);
  const speech = (key: string) =>
    greetings.speech(key, () => {
      const made1 = synthesis();
      made.push(made1);
      return made1;
    });
  return { greetings, speech, made, advance: (ms: number) => (now += ms) };
}

describe('GreetingCache: the greetings kept for the next calls that say them', () => {
  it('gives the calls of one key one synthesis, under way or whole', async () => {
    const { greetings, speech, made } = cache();
    const first = speech('a');
    const second = speech('a');
    expect(first.kept).toBe(false);
    expect(second).toEqual({ speech: first.speech, kept: true });
    made[0]!.finish(8000);
    await settledNow();
    expect(speech('a')).toEqual({ speech: first.speech, kept: true });
    expect(made).toHaveLength(1);
    expect([greetings.size, greetings.bytes]).toEqual([1, 8000]);
  });

  it('keeps apart what its key tells apart', () => {
    const { speech, made } = cache();
    speech('a');
    speech('b');
    expect(made).toHaveLength(2);
  });

  it('does not keep a synthesis that failed, or one larger than a greeting is kept: the next call makes it again', async () => {
    const { greetings, speech, made } = cache({ maxSpeechBytes: 1000 });
    speech('failed');
    speech('long');
    made[0]!.fail();
    made[1]!.finish(1001);
    await settledNow();
    expect([greetings.size, greetings.bytes]).toEqual([0, 0]);
    expect(speech('failed').kept).toBe(false);
    expect(speech('long').kept).toBe(false);
    expect(made).toHaveLength(4);
  });

  it('holds at most maxBytes of audio, the least recently used going first', async () => {
    const { greetings, speech, made } = cache({ maxBytes: 20_000 });
    for (const key of ['a', 'b']) {
      speech(key);
      made.at(-1)!.finish(8000);
      await settledNow();
    }
    expect(speech('a').kept).toBe(true); // now used after b
    speech('c');
    made.at(-1)!.finish(8000);
    await settledNow();
    expect([greetings.size, greetings.bytes]).toEqual([2, 16_000]);
    expect(speech('a').kept).toBe(true);
    expect(speech('c').kept).toBe(true);
    expect(speech('b').kept).toBe(false);
  });

  it('holds at most maxEntries greetings, those under way included', () => {
    const { greetings, speech } = cache({ maxEntries: 2 });
    speech('a');
    speech('b');
    speech('c');
    expect(greetings.size).toBe(2);
    expect(speech('a').kept).toBe(false);
  });

  it('makes audio older than maxAgeMs again, counting only what it keeps', async () => {
    const { greetings, speech, made, advance } = cache({ maxAgeMs: 60_000 });
    speech('a');
    made[0]!.finish(8000);
    await settledNow();
    advance(59_999);
    expect(speech('a').kept).toBe(true);
    advance(1);
    expect(speech('a').kept).toBe(false);
    expect(greetings.bytes).toBe(0);
    made[1]!.finish(4000);
    await settledNow();
    expect([greetings.size, greetings.bytes]).toEqual([1, 4000]);
  });

  it('a synthesis that settles after its entry was replaced does not count', async () => {
    const { greetings, speech, made, advance } = cache({ maxAgeMs: 1000 });
    speech('a');
    advance(1000);
    speech('a');
    made[1]!.finish(4000);
    made[0]!.finish(8000);
    await settledNow();
    expect([greetings.size, greetings.bytes]).toEqual([1, 4000]);
  });
});

describe("greetingSpeech: a call's greeting made ready, shared when its words are the agent's alone", () => {
  /** Text-to-speech that answers each text at once, counting its requests. */
  function countingSpeech() {
    const requests: string[] = [];
    const tts: TextToSpeech = {
      name: 'speech',
      async *stream(text) {
        requests.push(text);
        yield Buffer.from(text);
      },
    };
    return { tts, requests };
  }
  const plan = (greeting: string | undefined, configurations: Record<string, unknown> = {}) =>
    buildCallPlan(
      callInput({
        workflowDefinition: greeting === undefined ? {} : { greeting },
        workflowConfigurations: configurations,
        initialContext: { name: 'Anna' },
      }),
    );
  const source = 'agent 1/2 2026-11-26T10:00:00.000Z 7 platform key speech';

  it('synthesizes a fixed greeting once for every call of the agent', async () => {
    const greetings = new GreetingCache<SpeechAhead>();
    const { tts, requests } = countingSpeech();
    const first = greetingSpeech(greetings, tts, plan('Hello, this is the clinic.'), source)!;
    await new Promise((resolve) => setImmediate(resolve));
    const second = greetingSpeech(greetings, tts, plan('Hello, this is the clinic.'), source)!;
    expect([first.kept, second.kept]).toEqual([false, true]);
    for (const call of [first, second]) {
      const audio: Uint8Array[] = [];
      for await (const chunk of call.early.provider.stream(
        'Hello, this is the clinic.',
        { language: 'en' },
        new AbortController().signal,
      ))
        audio.push(chunk);
      expect(Buffer.concat(audio).toString()).toBe('Hello, this is the clinic.');
    }
    expect(requests).toEqual(['Hello, this is the clinic.']);
  });

  it.each<[string, { source?: string; configurations?: Record<string, unknown> }]>([
    ['another version of the agent or its definition, or another provider', { source: `${source} (changed)` }],
    ['another voice', { configurations: { voice: 'v2' } }],
    ['another language', { configurations: { language: 'pl' } }],
  ])('new audio for %s', (_case, change) => {
    const greetings = new GreetingCache<SpeechAhead>();
    const { tts, requests } = countingSpeech();
    greetingSpeech(greetings, tts, plan('Hello.'), source);
    const changed = greetingSpeech(greetings, tts, plan('Hello.', change.configurations), change.source ?? source)!;
    expect(changed.kept).toBe(false);
    expect(requests).toEqual(['Hello.', 'Hello.']);
  });

  it("never keeps a greeting with the call's own variables in it, even when two calls' words are the same", () => {
    const greetings = new GreetingCache<SpeechAhead>();
    const { tts, requests } = countingSpeech();
    const calls = [1, 2].map(() => greetingSpeech(greetings, tts, plan('Hi {{initial_context.name}}.'), source)!);
    expect(calls.map((call) => call.kept)).toEqual([false, false]);
    expect(requests).toEqual(['Hi Anna.', 'Hi Anna.']);
    expect(greetings.size).toBe(0);
  });

  it('makes nothing ready for an agent without a greeting', () => {
    expect(greetingSpeech(new GreetingCache<SpeechAhead>(), countingSpeech().tts, plan(undefined), source)).toBeNull();
  });
});
