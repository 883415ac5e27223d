import { randomBytes } from 'node:crypto';
import type { VoiceKeyReader, VoiceProviderKey } from '../../media/src/agent/providers.ts';
import {
  localVoiceProviders,
  type LocalProvider,
  type LocalVoiceProviders,
} from '../../shared/config/local-voice-providers.ts';
import { startFakeDeepgram, type FakeDeepgram, type FakeDeepgramOptions } from './deepgram-live.ts';
import { startFakeElevenLabs, type FakeElevenLabs, type FakeElevenLabsOptions } from './elevenlabs.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from './openai-compatible.ts';
import { startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions } from './openai-realtime.ts';
import { startFakeToolEndpoint, type FakeToolEndpoint } from './tool-endpoint.ts';

/** The model name the media service asks the fake model for. */
export const FAKE_MODEL = 'fake-chat';

/** The platform's providers as the media service and the functions are configured for them. */
export interface VoiceProviderSettings {
  /** The media task's provider settings (what the stack sets on AWS): the fakes' URLs, the voice settings. */
  settings: Record<string, string>;
  /** The VoiceProviders secret's content (what the operator puts in it on AWS); the realtime key with its fake. */
  keys: Record<Exclude<VoiceProviderKey, 'realtimeApiKey'>, string> & { realtimeApiKey?: string };
}

/** Where a fake listens and the key it accepts. */
export interface FakeEndpoint {
  url: string;
  apiKey: string;
}

/**
 * The settings and keys for `providers`: a real provider has its key and no URL setting, so its
 * SDK talks to the provider's own endpoint as on AWS (the model: its `LLM_API_URL` and
 * `LLM_MODEL`); every other provider is pointed at its fake in `fakes`.
 */
export function voiceProviderSettings(
  providers: LocalVoiceProviders,
  fakes: Partial<Record<LocalProvider, FakeEndpoint>>,
): VoiceProviderSettings {
  const fake = (provider: LocalProvider): FakeEndpoint => {
    const endpoint = fakes[provider];
    if (!endpoint) throw new Error(`The ${provider} provider has neither a key nor a local fake`);
    return endpoint;
  };
  const settings: Record<string, string> = { ...providers.voice };
  const key = (provider: LocalProvider, real: { apiKey: string } | undefined, urlSetting: string): string => {
    if (real) return real.apiKey;
    const endpoint = fake(provider);
    settings[urlSetting] = endpoint.url;
    return endpoint.apiKey;
  };
  const keys: VoiceProviderSettings['keys'] = {
    deepgramApiKey: key('deepgram', providers.deepgram, 'DEEPGRAM_API_URL'),
    llmApiKey: key('model', providers.model, 'LLM_API_URL'),
    elevenLabsApiKey: key('elevenlabs', providers.elevenlabs, 'ELEVENLABS_API_URL'),
  };
  if (providers.model) settings.LLM_API_URL = providers.model.apiUrl;
  settings.LLM_MODEL = providers.model?.model ?? FAKE_MODEL;
  return { settings, keys };
}

/** The platform's providers with the fakes that stand in for those without a key. */
export interface VoiceProviders extends VoiceProviderSettings {
  keys: Record<VoiceProviderKey, string>;
  /** Reads `keys` as the secret would be read (tests that run the media code without Secrets Manager). */
  readKeys: VoiceKeyReader;
  /** The fakes started: none for a provider whose key is set. */
  fakes: { deepgram?: FakeDeepgram; model?: FakeOpenAi; elevenlabs?: FakeElevenLabs; realtime?: FakeRealtime };
  tools: FakeToolEndpoint;
  stop: () => Promise<void>;
}

export interface FakeVoiceOptions {
  deepgram?: Omit<FakeDeepgramOptions, 'apiKey'>;
  openai?: Omit<FakeOpenAiOptions, 'apiKey'>;
  elevenlabs?: Omit<FakeElevenLabsOptions, 'apiKey'>;
  realtime?: Omit<FakeRealtimeOptions, 'apiKey'>;
}

/**
 * The providers of `providers`: a local fake, with a random key, for each one without a real key
 * (only those are started), and the local tool endpoint.
 */
export async function startVoiceProviders(
  providers: LocalVoiceProviders,
  options: FakeVoiceOptions = {},
): Promise<VoiceProviders> {
  const key = () => randomBytes(16).toString('hex');
  const fakeKeys = { deepgram: key(), model: key(), elevenlabs: key(), realtime: key() };
  const [deepgram, model, elevenlabs, realtime, tools] = await Promise.all([
    providers.deepgram ? undefined : startFakeDeepgram({ ...options.deepgram, apiKey: fakeKeys.deepgram }),
    providers.model ? undefined : startFakeOpenAi({ ...options.openai, apiKey: fakeKeys.model }),
    providers.elevenlabs ? undefined : startFakeElevenLabs({ ...options.elevenlabs, apiKey: fakeKeys.elevenlabs }),
    providers.realtime ? undefined : startFakeRealtime({ ...options.realtime, apiKey: fakeKeys.realtime }),
    startFakeToolEndpoint(),
  ]);
  const { settings, keys } = voiceProviderSettings(providers, {
    ...(deepgram ? { deepgram: { url: deepgram.url, apiKey: fakeKeys.deepgram } } : {}),
    ...(model ? { model: { url: model.url, apiKey: fakeKeys.model } } : {}),
    ...(elevenlabs ? { elevenlabs: { url: elevenlabs.url, apiKey: fakeKeys.elevenlabs } } : {}),
  });
  // The realtime engine's sessions open at its fake, whose certificate the client is told to trust.
  if (realtime) Object.assign(settings, { REALTIME_API_URL: realtime.url, REALTIME_TLS_CA: realtime.ca });
  const allKeys = { ...keys, realtimeApiKey: providers.realtime?.apiKey ?? fakeKeys.realtime };
  return {
    settings,
    keys: allKeys,
    readKeys: async (names) => Object.fromEntries(names.map((name) => [name, allKeys[name]])) as never,
    fakes: { deepgram, model, elevenlabs, realtime },
    tools,
    stop: async () => {
      await Promise.all([deepgram?.stop(), model?.stop(), elevenlabs?.stop(), realtime?.stop(), tools.stop()]);
    },
  };
}

/** Every provider's local fake (what the tests and benchmarks run against). */
export interface FakeVoiceProviders extends VoiceProviders {
  deepgram: FakeDeepgram;
  openai: FakeOpenAi;
  elevenlabs: FakeElevenLabs;
  realtime: FakeRealtime;
}

/** Every voice provider's local fake, with random keys, and the settings that select them. */
export async function startFakeVoiceProviders(options: FakeVoiceOptions = {}): Promise<FakeVoiceProviders> {
  const providers = await startVoiceProviders(localVoiceProviders({}), options);
  const { deepgram, model, elevenlabs, realtime } = providers.fakes;
  if (!deepgram || !model || !elevenlabs || !realtime) throw new Error('Every fake starts when no provider has a key');
  return { ...providers, deepgram, openai: model, elevenlabs, realtime };
}
