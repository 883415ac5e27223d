import {
  DEFAULT_LLM_API_URL,
  DEFAULT_LLM_MODEL,
  DEFAULT_VOICES,
  TTS_PROVIDERS,
  VOICE_SETTINGS,
  voiceSetting,
  type VoiceSettingName,
} from './voice-settings.ts';

/**
 * Which speech and model providers `npm start` uses (local/start.ts; the tests' stack is always
 * offline). Each provider whose key is in the environment is the real service, reached by the
 * same SDK clients as on AWS at the provider's own endpoint; each other one is its local fake
 * (local/fakes/), so without keys nothing leaves the machine. The names follow the deployed
 * stack's: the VoiceProviders secret's `deepgramApiKey`, `llmApiKey`, `elevenLabsApiKey` and `realtimeApiKey`, the
 * settings `LLM_API_URL` and `LLM_MODEL`, and the voice settings of shared/config/voice-settings.ts.
 */
export const LOCAL_PROVIDER_KEYS = {
  deepgram: 'DEEPGRAM_API_KEY',
  model: 'LLM_API_KEY',
  elevenlabs: 'ELEVENLABS_API_KEY',
  realtime: 'REALTIME_API_KEY',
} as const;

export type LocalProvider = keyof typeof LOCAL_PROVIDER_KEYS;

export interface LocalVoiceProviders {
  /** Deepgram with this key at its own endpoint; absent: the local fake. */
  deepgram?: { apiKey: string };
  /** The platform model with this key, at an OpenAI-compatible API (OpenAI's by default); absent: the fake. */
  model?: { apiKey: string; apiUrl: string; model: string };
  /** ElevenLabs with this key at its own endpoint; absent: the local fake. */
  elevenlabs?: { apiKey: string };
  /** OpenAI's Realtime API with this key (the `realtime` engine); absent: the local fake. */
  realtime?: { apiKey: string };
  /** The media service's voice settings (the names the stack sets on the task), from the environment or their defaults. */
  voice: Record<VoiceSettingName, string>;
}

const read = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

/**
 * The providers for `env`. A setting that would be ignored fails, naming it: `LLM_API_URL` or
 * `LLM_MODEL` without `LLM_API_KEY` (the fake model would answer instead), a `TTS_PROVIDER` the
 * media service does not speak, an `LLM_API_URL` that is not an http(s) URL.
 */
export function localVoiceProviders(env: NodeJS.ProcessEnv): LocalVoiceProviders {
  const voice = Object.fromEntries(
    Object.keys(VOICE_SETTINGS).map((name) => [name, voiceSetting(env, name as VoiceSettingName)]),
  ) as Record<VoiceSettingName, string>;
  if (!TTS_PROVIDERS.includes(voice.TTS_PROVIDER as (typeof TTS_PROVIDERS)[number]))
    throw new Error(`TTS_PROVIDER must be one of ${TTS_PROVIDERS.join(', ')}, not '${voice.TTS_PROVIDER}'`);
  const deepgramKey = read(env, LOCAL_PROVIDER_KEYS.deepgram);
  const modelKey = read(env, LOCAL_PROVIDER_KEYS.model);
  const elevenLabsKey = read(env, LOCAL_PROVIDER_KEYS.elevenlabs);
  const realtimeKey = read(env, LOCAL_PROVIDER_KEYS.realtime);
  const apiUrl = read(env, 'LLM_API_URL');
  const model = read(env, 'LLM_MODEL');
  if (!modelKey && (apiUrl || model))
    throw new Error(
      `${apiUrl ? 'LLM_API_URL' : 'LLM_MODEL'} is set but ${LOCAL_PROVIDER_KEYS.model} is not: the local fake model would answer. ` +
        `Set ${LOCAL_PROVIDER_KEYS.model} (any value for a server that wants none), or unset it`,
    );
  if (apiUrl && !/^https?:\/\/[^/]/.test(apiUrl))
    throw new Error(`LLM_API_URL must be the http(s) base URL of an OpenAI-compatible API, not '${apiUrl}'`);
  return {
    ...(deepgramKey ? { deepgram: { apiKey: deepgramKey } } : {}),
    ...(modelKey
      ? { model: { apiKey: modelKey, apiUrl: apiUrl ?? DEFAULT_LLM_API_URL, model: model ?? DEFAULT_LLM_MODEL } }
      : {}),
    ...(elevenLabsKey ? { elevenlabs: { apiKey: elevenLabsKey } } : {}),
    ...(realtimeKey ? { realtime: { apiKey: realtimeKey } } : {}),
    voice,
  };
}

/**
 * What `npm start` prints: for speech to text, the model and text to speech, whether the real
 * provider or the local fake answers, and which variable changes that.
 */
export function describeLocalVoiceProviders(providers: LocalVoiceProviders, env: NodeJS.ProcessEnv): string[] {
  const { voice } = providers;
  const fake = (provider: LocalProvider, what: string) =>
    `local fake${what ? ` of ${what}` : ''} (set ${LOCAL_PROVIDER_KEYS[provider]} for the real one)`;
  const modelHost = providers.model && new URL(providers.model.apiUrl).host;
  const ttsVoice = (provider: keyof typeof DEFAULT_VOICES) => voice.TTS_VOICE || DEFAULT_VOICES[provider];
  const lines = [
    `Speech to text: ${providers.deepgram ? `Deepgram, model ${voice.DEEPGRAM_MODEL}` : fake('deepgram', 'Deepgram')}`,
    `Language model: ${providers.model ? `${providers.model.model} at ${modelHost}` : fake('model', '')}`,
    `Text to speech: ${
      voice.TTS_PROVIDER === 'openai'
        ? providers.model
          ? `OpenAI speech at ${modelHost}, model ${voice.OPENAI_TTS_MODEL}, voice ${ttsVoice('openai')}`
          : fake('model', 'OpenAI speech')
        : providers.elevenlabs
          ? `ElevenLabs, model ${voice.ELEVENLABS_MODEL}, voice ${ttsVoice('elevenlabs')}`
          : fake('elevenlabs', 'ElevenLabs')
    }`,
    `Speech to speech (agents of engine realtime): ${
      providers.realtime
        ? `OpenAI Realtime, model ${voice.REALTIME_MODEL}`
        : fake('realtime', 'the OpenAI Realtime API')
    }`,
  ];
  // The usual name of an OpenAI key is not read: the platform model's key is LLM_API_KEY, as in the deployed secret.
  if (!providers.model && read(env, 'OPENAI_API_KEY'))
    lines.push(
      `(OPENAI_API_KEY is not read: the platform model's key is ${LOCAL_PROVIDER_KEYS.model}, e.g. ${LOCAL_PROVIDER_KEYS.model}=$OPENAI_API_KEY npm start)`,
    );
  return lines;
}
