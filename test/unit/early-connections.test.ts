import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_PREFETCHED_SPEECH_BYTES,
  MODEL_WARM_INTERVAL_MS,
  SpeechAhead,
  speakEarly,
  speakShared,
  warmModel,
} from '../../media/src/agent/early-providers.ts';
import type { LanguageModel, TextToSpeech } from '../../media/src/agent/interfaces.ts';
import { CallPreparer, type EarlyCall } from '../../media/src/call-preparer.ts';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanups.length) await cleanups.pop()!();
});

/** A preparation whose release is counted. */
function earlyCall(): EarlyCall & { released: number } {
  const early = {
    released: 0,
    call: {} as EarlyCall['call'],
    planWith: () => ({}) as EarlyCall['call']['plan'],
    parts: [],
    release: async () => void (early.released += 1),
  };
  return early;
}

describe('CallPreparer: calls prepared while they ring', () => {
  const preparer = (room: (prepared: number) => boolean = () => true, ttlMs = 1_000) =>
    new CallPreparer({ log: () => {}, ttlMs, room });

  it('hands the preparation to the call that takes it, and never releases it itself', async () => {
    vi.useFakeTimers();
    const calls = preparer();
    const early = earlyCall();
    expect(calls.prepare('1.2.3', async () => early)).toBe('preparing');
    expect(calls.size).toBe(1);
    expect(await calls.take('1.2.3')).toBe(early);
    expect(calls.size).toBe(0);
    expect(calls.take('1.2.3')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(early.released).toBe(0);
  });

  it('releases a preparation nobody took once its time is up (a call never answered, or answered elsewhere)', async () => {
    vi.useFakeTimers();
    const calls = preparer();
    const early = earlyCall();
    calls.prepare('1.2.3', async () => early);
    await vi.advanceTimersByTimeAsync(999);
    expect(early.released).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(early.released).toBe(1);
    expect(calls.size).toBe(0);
    expect(calls.take('1.2.3')).toBeUndefined();
  });

  it.each([
    ['prepared already', () => true, 'already'],
    ['no room on the task', (prepared: number) => prepared < 1, 'full'],
  ] as const)('prepares a call once (%s)', (_case, room, second) => {
    const calls = preparer(room);
    cleanups.push(() => calls.close());
    expect(calls.prepare('1.2.3', async () => earlyCall())).toBe('preparing');
    expect(calls.prepare(second === 'already' ? '1.2.3' : '1.2.4', async () => earlyCall())).toBe(second);
    expect(calls.size).toBe(1);
  });

  it('a preparation that failed leaves the call to open what it needs on answer', async () => {
    const logged: string[] = [];
    const calls = new CallPreparer({ log: (_level, message) => void logged.push(message), room: () => true });
    calls.prepare('1.2.3', async () => {
      throw new Error('no agent');
    });
    expect(await calls.take('1.2.3')).toBeUndefined();
    expect(logged).toEqual(['call not prepared early: its first turn opens what it needs']);
  });

  it('releases every preparation when the task stops, the ones still being made too', async () => {
    const calls = preparer();
    const made = [earlyCall(), earlyCall()];
    let finish!: () => void;
    calls.prepare('1.2.3', async () => made[0]!);
    calls.prepare('1.2.4', () => new Promise((resolve) => (finish = () => resolve(made[1]!))));
    const closed = calls.close();
    finish();
    await closed;
    expect(made.map((early) => early.released)).toEqual([1, 1]);
    expect(calls.size).toBe(0);
  });
});

/** Text-to-speech that streams a text's bytes in chunks, counting its requests; `gate` holds the chunks after the first. */
function countingSpeech(options: { fail?: boolean; chunk?: number; gate?: Promise<void> } = {}) {
  const requests: string[] = [];
  const aborted: string[] = [];
  const tts: TextToSpeech = {
    name: 'speech',
    async *stream(text, _options, signal) {
      requests.push(text);
      signal.addEventListener('abort', () => aborted.push(text));
      if (options.fail) throw new Error('speech failed');
      const bytes = Buffer.from(text.repeat(options.chunk ?? 1));
      yield bytes.subarray(0, 1);
      await options.gate;
      yield bytes.subarray(1);
    },
  };
  return { tts, requests, aborted };
}

async function collect(audio: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of audio) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('speakEarly: the greeting synthesized while the phone rings', () => {
  const voice = { voice: 'v1', language: 'en' };
  const signal = () => new AbortController().signal;

  it('plays the greeting from memory once; the same text later is synthesized again, as is any other', async () => {
    const speech = countingSpeech();
    const early = speakEarly(speech.tts, 'Hello.', voice);
    expect(await early.synthesized).toBe(true);
    expect(await collect(early.provider.stream('Hello.', voice, signal()))).toBe('Hello.');
    expect(early.used).toBe(true);
    expect(speech.requests).toEqual(['Hello.']);
    expect(await collect(early.provider.stream('Hello.', voice, signal()))).toBe('Hello.');
    expect(await collect(early.provider.stream('Bye.', voice, signal()))).toBe('Bye.');
    expect(speech.requests).toEqual(['Hello.', 'Hello.', 'Bye.']);
  });

  it('a call answered before the greeting is whole plays what has come, then the rest as it arrives', async () => {
    let open!: () => void;
    const speech = countingSpeech({ gate: new Promise((resolve) => (open = resolve)) });
    const early = speakEarly(speech.tts, 'Hello.', voice);
    const played = collect(early.provider.stream('Hello.', voice, signal()));
    open();
    expect(await played).toBe('Hello.');
    expect(speech.requests).toEqual(['Hello.']);
  });

  it.each([
    ['another voice', { voice: 'v2', language: 'en' }],
    ['another language', { voice: 'v1', language: 'pl' }],
  ])('the greeting in %s is synthesized for the call', async (_case, asked) => {
    const speech = countingSpeech();
    const early = speakEarly(speech.tts, 'Hello.', voice);
    await early.synthesized;
    await collect(early.provider.stream('Hello.', asked, signal()));
    expect(speech.requests).toEqual(['Hello.', 'Hello.']);
  });

  it.each([
    ['failed', { fail: true }],
    ['was longer than the prefetch keeps', { chunk: MAX_PREFETCHED_SPEECH_BYTES }],
  ])('a greeting whose synthesis %s is synthesized again for the call', async (_case, options) => {
    const speech = countingSpeech(options);
    const early = speakEarly(speech.tts, 'Hi.', voice);
    expect(await early.synthesized).toBe(false);
    await collect(early.provider.stream('Hi.', voice, signal())).catch(() => '');
    expect(speech.requests).toEqual(['Hi.', 'Hi.']);
    expect(early.used).toBe(false);
  });

  it("a synthesis that fails while the call plays it fails the call's speech (as a live stream would)", async () => {
    let fail!: () => void;
    const tts: TextToSpeech = {
      name: 'speech',
      async *stream() {
        yield Buffer.from('H');
        await new Promise<void>((resolve) => (fail = resolve));
        throw new Error('speech failed');
      },
    };
    const early = speakEarly(tts, 'Hello.', voice);
    const played = collect(early.provider.stream('Hello.', voice, signal()));
    await vi.waitFor(() => expect(fail).toBeDefined());
    fail();
    await expect(played).rejects.toThrow('speech failed');
  });

  it('released unused, the synthesis under way is aborted', async () => {
    let open!: () => void;
    const speech = countingSpeech({ gate: new Promise((resolve) => (open = resolve)) });
    const early = speakEarly(speech.tts, 'Hello.', voice);
    await sleep(0);
    const released = early.release();
    open();
    await released;
    expect(speech.aborted).toEqual(['Hello.']);
    expect(await early.synthesized).toBe(false);
  });

  it('an answer cut off while waiting for the rest of the greeting stops at once', async () => {
    const speech = countingSpeech({ gate: new Promise(() => {}) });
    const early = speakEarly(speech.tts, 'Hello.', voice);
    cleanups.push(() => early.release());
    const controller = new AbortController();
    const played = collect(early.provider.stream('Hello.', voice, controller.signal));
    await sleep(10);
    controller.abort();
    expect(await played).toBe('H');
  });
});

describe("a prepared greeting and the call's own connection (TextToSpeech.forCall)", () => {
  const voice = { voice: 'v1', language: 'en' };
  const signal = () => new AbortController().signal;

  it('the call plays the greeting from what was prepared, and speaks the rest over its own connection, closed with it', async () => {
    const shared = countingSpeech();
    const own = countingSpeech();
    let closed = 0;
    const tts: TextToSpeech = { ...shared.tts, forCall: () => ({ ...own.tts, close: () => void (closed += 1) }) };
    const early = speakEarly(tts, 'Hello.', voice);
    expect(await early.synthesized).toBe(true);
    const call = early.provider.forCall!();
    expect(await collect(call.stream('Hello.', voice, signal()))).toBe('Hello.');
    expect(await collect(call.stream('Bye.', voice, signal()))).toBe('Bye.');
    expect(shared.requests).toEqual(['Hello.']);
    expect(own.requests).toEqual(['Bye.']);
    expect(early.used).toBe(true);
    call.close();
    expect(closed).toBe(1);
  });

  it('a provider without connections of its own is wrapped without one', () => {
    expect(speakEarly(countingSpeech().tts, 'Hello.', voice).provider.forCall).toBeUndefined();
  });
});

describe("SpeechAhead shared: one greeting's speech played by every call that says it (speakShared)", () => {
  const voice = { voice: 'v1', language: 'en' };
  const signal = () => new AbortController().signal;

  it('plays the same audio to each call from one synthesis, whole or as it arrives; a call released leaves it to the others', async () => {
    let open!: () => void;
    const speech = countingSpeech({ gate: new Promise((resolve) => (open = resolve)) });
    const shared = new SpeechAhead(speech.tts, 'Hello.', voice);
    const [first, second, third] = [
      speakShared(speech.tts, shared),
      speakShared(speech.tts, shared),
      speakShared(speech.tts, shared),
    ];
    const playing = [
      collect(first.provider.stream('Hello.', voice, signal())),
      collect(second.provider.stream('Hello.', voice, signal())),
    ];
    await third.release();
    open();
    expect(await Promise.all(playing)).toEqual(['Hello.', 'Hello.']);
    expect(await shared.synthesized).toBe(true);
    expect(speech.aborted).toEqual([]);
    expect(speech.requests).toEqual(['Hello.']);
    expect([first.used, second.used]).toEqual([true, true]);
    // Each call plays it once; its next speech of the same words is its own.
    expect(await collect(first.provider.stream('Hello.', voice, signal()))).toBe('Hello.');
    expect(speech.requests).toEqual(['Hello.', 'Hello.']);
  });

  it('a call whose synthesis failed before it played asks the provider itself', async () => {
    const speech = countingSpeech({ fail: true });
    const shared = new SpeechAhead(speech.tts, 'Hi.', voice);
    expect(await shared.synthesized).toBe(false);
    await collect(speakShared(speech.tts, shared).provider.stream('Hi.', voice, signal())).catch(() => '');
    expect(speech.requests).toEqual(['Hi.', 'Hi.']);
  });

  it('past the limit it goes on only while a call plays it (that call hears it whole)', async () => {
    const chunk = MAX_PREFETCHED_SPEECH_BYTES;
    let open!: () => void;
    const unheard = countingSpeech({ chunk, gate: new Promise((resolve) => (open = resolve)) });
    const alone: SpeechAhead = new SpeechAhead(unheard.tts, 'Hi.', voice, () => alone.playing > 0);
    open();
    expect(await alone.synthesized).toBe(false);

    const heard = countingSpeech({ chunk, gate: new Promise((resolve) => (open = resolve)) });
    const played: SpeechAhead = new SpeechAhead(heard.tts, 'Hi.', voice, () => played.playing > 0);
    const audio = collect(speakShared(heard.tts, played).provider.stream('Hi.', voice, signal()));
    await vi.waitFor(() => expect(played.playing).toBe(1));
    open();
    expect((await audio).length).toBe('Hi.'.length * chunk);
    expect(await played.synthesized).toBe(true);
    expect(played.playing).toBe(0);
  });
});

describe("warmModel: the model's connection opened for a call about to start", () => {
  it('opens it at most once per MODEL_WARM_INTERVAL_MS for one client, and each client its own', async () => {
    const warmed: string[] = [];
    const model = (name: string): LanguageModel => ({
      name,
      defaultModel: 'm',
      // eslint-disable-next-line require-yield -- never asked to answer here
      async *stream() {
        return;
      },
      warmUp: async () => void warmed.push(name),
    });
    const [platform, other] = [model('platform'), model('other')];
    await warmModel(platform, 10_000);
    await warmModel(platform, 10_000 + MODEL_WARM_INTERVAL_MS - 1);
    await warmModel(other, 10_000);
    expect(warmed).toEqual(['platform', 'other']);
    await warmModel(platform, 10_000 + MODEL_WARM_INTERVAL_MS);
    expect(warmed).toEqual(['platform', 'other', 'platform']);
  });

  it('a warm-up that fails is the first answer’s to report, never the preparation’s', async () => {
    const failing: LanguageModel = {
      name: 'down',
      defaultModel: 'm',
      // eslint-disable-next-line require-yield -- never asked to answer here
      async *stream() {
        return;
      },
      warmUp: async () => {
        throw new Error('connection refused');
      },
    };
    await expect(warmModel(failing)).resolves.toBeUndefined();
  });
});
