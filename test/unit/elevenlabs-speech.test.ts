import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsTextToSpeech } from '../../media/src/agent/providers.ts';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../local/fakes/elevenlabs.ts';
import { multiStreamUrl } from '../../media/src/agent/elevenlabs-multi-stream.ts';

/** Whether the ElevenLabs SDK (CommonJS, so in require's cache once loaded) is loaded in this process. */
const sdkLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/@elevenlabs/elevenlabs-js/'));
// Read after this file's imports are evaluated: the media code's providers, the ElevenLabs client among them.
const loadedWithTheMediaCode = sdkLoaded();

let fake: FakeElevenLabs;
beforeAll(async () => {
  fake = await startFakeElevenLabs({ apiKey: 'el-key' });
});
afterAll(() => fake.stop());

describe('ElevenLabs text to speech', () => {
  it('loads the SDK when it first speaks, not with the media code (about 1.4 s of CPU in every process that imports it)', async () => {
    expect(loadedWithTheMediaCode).toBe(false);
    const tts = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: fake.url });
    expect(sdkLoaded()).toBe(false);
    const chunks: Uint8Array[] = [];
    for await (const chunk of tts.stream('Hello.', { language: 'en-US' }, new AbortController().signal))
      chunks.push(chunk);
    expect(sdkLoaded()).toBe(true);
    expect(Buffer.concat(chunks).length).toBeGreaterThan(0);
    expect(fake.texts).toEqual(['Hello.']);
  });

  it("reports a key the provider refuses as the provider's error, naming ElevenLabs", async () => {
    const tts = new ElevenLabsTextToSpeech({ apiKey: 'wrong-key', baseUrl: fake.url });
    const speaking = async () => {
      for await (const _chunk of tts.stream('Hello.', { language: 'en-US' }, new AbortController().signal));
    };
    await expect(speaking()).rejects.toMatchObject({ name: 'ProviderError', provider: 'ElevenLabs' });
  });
});

describe("ElevenLabs text to speech: a call's own connection (multi-stream-input)", () => {
  const speak = async (
    tts: { stream: ElevenLabsTextToSpeech['stream'] },
    text: string,
    signal = new AbortController().signal,
  ) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of tts.stream(text, { language: 'en-US' }, signal)) chunks.push(chunk);
    return Buffer.concat(chunks);
  };

  it("speaks a call's sentences over one WebSocket, each the same audio as its HTTP request's", async () => {
    const shared = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: fake.url });
    const call = shared.forCall();
    const before = { connections: fake.connections, texts: fake.texts.length };
    const sentences = ['Hello, this is the clinic.', 'We open at eight.', 'Goodbye.'];
    const overSocket = [];
    for (const sentence of sentences) overSocket.push(await speak(call, sentence));
    // Two at once share it too (each its own context).
    const [first, second] = await Promise.all([speak(call, 'One.'), speak(call, 'Two.')]);
    call.close();
    expect(fake.connections - before.connections).toBe(1);
    expect(fake.texts.slice(before.texts)).toEqual([...sentences, 'One.', 'Two.']);
    for (const [index, sentence] of sentences.entries())
      expect(overSocket[index]).toEqual(await speak(shared, sentence));
    expect(first).toEqual(await speak(shared, 'One.'));
    expect(second).toEqual(await speak(shared, 'Two.'));
  });

  it('stops a sentence cut off without failing, and speaks the next on the same connection', async () => {
    const call = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: fake.url }).forCall();
    const before = fake.connections;
    const cut = new AbortController();
    let heard = 0;
    for await (const chunk of call.stream('A long answer. '.repeat(20), { language: 'en-US' }, cut.signal)) {
      heard += chunk.length;
      cut.abort();
    }
    expect(heard).toBeGreaterThan(0);
    expect((await speak(call, 'Next.')).length).toBeGreaterThan(0);
    call.close();
    expect(fake.connections - before).toBe(1);
  });

  it("reports a refused key as the provider's error, naming ElevenLabs; a closed call's voice speaks no more", async () => {
    const refused = new ElevenLabsTextToSpeech({ apiKey: 'wrong-key', baseUrl: fake.url }).forCall();
    await expect(speak(refused, 'Hello.')).rejects.toMatchObject({ name: 'ProviderError', provider: 'ElevenLabs' });
    refused.close();
    const call = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: fake.url }).forCall();
    call.close();
    await expect(speak(call, 'Hello.')).rejects.toMatchObject({ name: 'ProviderError', provider: 'ElevenLabs' });
  });

  it('fails a sentence whose connection the provider closes, naming ElevenLabs', async () => {
    const failing = await startFakeElevenLabs({ apiKey: 'el-key', failFromRequest: 2 });
    try {
      const call = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: failing.url }).forCall();
      expect((await speak(call, 'First.')).length).toBeGreaterThan(0);
      // Closed before any audio: asked once more on a new connection, which fails it too.
      await expect(speak(call, 'Second.')).rejects.toMatchObject({
        name: 'ProviderError',
        message: expect.stringContaining('1011'),
      });
      expect(failing.texts).toEqual(['First.', 'Second.', 'Second.']);
      expect(failing.connections).toBe(2);
      call.close();
    } finally {
      await failing.stop();
    }
  });
});

describe("ElevenLabs text to speech: a call's connection closed while idle", () => {
  it('speaks the next sentence on a new connection, unnoticed by the call', async () => {
    const closing = await startFakeElevenLabs({ apiKey: 'el-key' });
    try {
      const call = new ElevenLabsTextToSpeech({ apiKey: 'el-key', baseUrl: closing.url }).forCall();
      const speak = async (text: string) => {
        let bytes = 0;
        for await (const chunk of call.stream(text, { language: 'en-US' }, new AbortController().signal))
          bytes += chunk.length;
        return bytes;
      };
      expect(await speak('First.')).toBeGreaterThan(0);
      // ElevenLabs closed the connection (idle past its inactivity timeout) as the next sentence was sent.
      closing.closeConnections(1000, 'inactivity timeout');
      expect(await speak('Second.')).toBeGreaterThan(0);
      expect(closing.connections).toBe(2);
      call.close();
    } finally {
      await closing.stop();
    }
  });
});

describe('multiStreamUrl', () => {
  it.each([
    ['http://127.0.0.1:9/', 'ws://127.0.0.1:9/v1/text-to-speech/v%201/multi-stream-input'],
    ['https://api.elevenlabs.io', 'wss://api.elevenlabs.io/v1/text-to-speech/v%201/multi-stream-input'],
  ])('%s', (base, expected) => {
    const url = multiStreamUrl(base, 'v 1', 'eleven_flash_v2_5', 'en');
    expect(url.split('?')[0]).toBe(expected);
    expect(Object.fromEntries(new URL(url).searchParams)).toEqual({
      model_id: 'eleven_flash_v2_5',
      output_format: 'ulaw_8000',
      language_code: 'en',
      inactivity_timeout: '180',
    });
  });
});
