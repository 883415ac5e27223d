import { randomBytes } from 'node:crypto';
import type { VoiceKeyReader, VoiceProviderKey } from '../../media/src/agent/providers.ts';
import { startFakeDeepgram, type FakeDeepgram, type FakeDeepgramOptions } from './deepgram-live.ts';
import { startFakeElevenLabs, type FakeElevenLabs, type FakeElevenLabsOptions } from './elevenlabs.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from './openai-compatible.ts';
import { startFakeToolEndpoint, type FakeToolEndpoint } from './tool-endpoint.ts';

export interface FakeVoiceProviders {
  /** The media task's provider settings, pointing at the fakes (what the stack sets on AWS). */
  settings: Record<string, string>;
  /** The VoiceProviders secret's content for the fakes (what the operator puts in it on AWS). */
  keys: Record<VoiceProviderKey, string>;
  /** Reads `keys` as the secret would be read (tests that run the media code without Secrets Manager). */
  readKeys: VoiceKeyReader;
  deepgram: FakeDeepgram;
  openai: FakeOpenAi;
  elevenlabs: FakeElevenLabs;
  tools: FakeToolEndpoint;
  stop: () => Promise<void>;
}

export interface FakeVoiceOptions {
  deepgram?: Omit<FakeDeepgramOptions, 'apiKey'>;
  openai?: Omit<FakeOpenAiOptions, 'apiKey'>;
  elevenlabs?: Omit<FakeElevenLabsOptions, 'apiKey'>;
}

/** Every voice provider's local fake, with random keys, and the settings that select them. */
export async function startFakeVoiceProviders(options: FakeVoiceOptions = {}): Promise<FakeVoiceProviders> {
  const key = () => randomBytes(16).toString('hex');
  const keys = { deepgram: key(), openai: key(), elevenlabs: key() };
  const [deepgram, openai, elevenlabs, tools] = await Promise.all([
    startFakeDeepgram({ ...options.deepgram, apiKey: keys.deepgram }),
    startFakeOpenAi({ ...options.openai, apiKey: keys.openai }),
    startFakeElevenLabs({ ...options.elevenlabs, apiKey: keys.elevenlabs }),
    startFakeToolEndpoint(),
  ]);
  const secret: Record<VoiceProviderKey, string> = {
    deepgramApiKey: keys.deepgram,
    llmApiKey: keys.openai,
    elevenLabsApiKey: keys.elevenlabs,
  };
  return {
    settings: {
      DEEPGRAM_API_URL: deepgram.url,
      LLM_API_URL: openai.url,
      LLM_MODEL: 'fake-chat',
      TTS_PROVIDER: 'elevenlabs',
      ELEVENLABS_API_URL: elevenlabs.url,
    },
    keys: secret,
    readKeys: async (names) => Object.fromEntries(names.map((name) => [name, secret[name]])) as never,
    deepgram,
    openai,
    elevenlabs,
    tools,
    stop: async () => {
      await Promise.all([deepgram.stop(), openai.stop(), elevenlabs.stop(), tools.stop()]);
    },
  };
}
