import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsTextToSpeech } from '../../media/src/agent/providers.ts';
import { startFakeElevenLabs, type FakeElevenLabs } from '../../local/fakes/elevenlabs.ts';

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
