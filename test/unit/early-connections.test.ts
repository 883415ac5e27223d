import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenEarly, MAX_PREFETCHED_SPEECH_BYTES, speakEarly } from '../../media/src/agent/early-providers.ts';
import type { SpeechToTextEvents, TextToSpeech } from '../../media/src/agent/interfaces.ts';
import { DeepgramSpeechToText } from '../../media/src/agent/providers.ts';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { CallPreparer, type EarlyCall } from '../../media/src/call-preparer.ts';
import { startFakeDeepgram } from '../../local/fakes/deepgram-live.ts';

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

describe('listenEarly: the speech-to-text stream opened while the phone rings (the Deepgram SDK against the local Deepgram)', () => {
  async function deepgram(options: { idleTimeoutMs?: number } = {}) {
    const fake = await startFakeDeepgram({ apiKey: 'key', ...options });
    cleanups.push(fake.stop);
    return fake;
  }
  const events = (heard: string[]): SpeechToTextEvents => ({
    speechStarted: () => {},
    transcript: (result) => void (result.isFinal && result.text && heard.push(result.text)),
    utteranceEnd: () => {},
    failed: (error) => void heard.push(`failed: ${error.message}`),
  });

  it("opens the stream at once; the call's open takes it over (no second connection) and hears the caller", async () => {
    const fake = await deepgram();
    const early = listenEarly(new DeepgramSpeechToText({ apiKey: 'key', baseUrl: fake.url }), 'en');
    expect(await early.opened).toBe(true);
    expect(fake.connections).toHaveLength(1);
    const heard: string[] = [];
    const stream = await early.provider.open({ language: 'en' }, events(heard));
    cleanups.push(() => stream.close());
    expect(early.used).toBe(true);
    stream.send(encodeMulaw(synthesizeSpeech('Hello there.')));
    stream.send(encodeMulaw(new Int16Array(8000)));
    await vi.waitFor(() => expect(heard).toEqual(['Hello there.']));
    expect(fake.connections).toHaveLength(1);
  });

  it('holds the stream with KeepAlive messages past Deepgram closing an idle one (a phone ringing for long)', async () => {
    const fake = await deepgram({ idleTimeoutMs: 300 });
    const stt = new DeepgramSpeechToText({ apiKey: 'key', baseUrl: fake.url, keepAliveAfterMs: 100 });
    const early = listenEarly(stt, 'en');
    cleanups.push(() => early.release());
    await early.opened;
    await sleep(900);
    expect(fake.keepAlives()).toBeGreaterThanOrEqual(3);
    const stream = await early.provider.open({ language: 'en' }, events([]));
    cleanups.push(() => stream.close());
    expect(fake.connections).toHaveLength(1);
    expect(fake.openStreams()).toBe(1);
  });

  it('closes the stream when the call never takes it (released), leaving none open', async () => {
    const fake = await deepgram();
    const early = listenEarly(new DeepgramSpeechToText({ apiKey: 'key', baseUrl: fake.url }), 'en');
    await early.opened;
    expect(fake.openStreams()).toBe(1);
    await early.release();
    await vi.waitFor(() => expect(fake.openStreams()).toBe(0));
    expect(early.used).toBe(false);
  });

  it('a call in another language opens its own stream, and the early one is closed', async () => {
    const fake = await deepgram();
    const early = listenEarly(new DeepgramSpeechToText({ apiKey: 'key', baseUrl: fake.url }), 'en');
    await early.opened;
    const stream = await early.provider.open({ language: 'pl' }, events([]));
    cleanups.push(() => stream.close());
    expect(fake.connections.map((query) => query.get('language'))).toEqual(['en', 'pl']);
    await vi.waitFor(() => expect(fake.openStreams()).toBe(1));
    expect(early.used).toBe(false);
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
