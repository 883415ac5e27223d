/**
 * The real provider clients, each through its official SDK: Deepgram live streaming (speech to
 * text, deepgram-speech-to-text.ts), any OpenAI-compatible chat API (the model), ElevenLabs streaming or OpenAI speech (text
 * to speech). Base URLs are settings so the local stack and tests can point the same code at the
 * fakes in local/fakes/, which speak the same protocols.
 */
import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import OpenAI from 'openai';
import { encodeMulaw } from '../audio/mulaw.ts';
import { DeepgramSpeechToText } from './deepgram-speech-to-text.ts';
import { ElevenLabsCallSpeech } from './elevenlabs-multi-stream.ts';
import { Downsampler } from '../audio/resampler.ts';
import { getSecretFields } from '../../../shared/config/secrets.ts';
import {
  DEFAULT_REALTIME_API_URL,
  DEFAULT_VOICES,
  TTS_PROVIDERS,
  VOICE_SETTINGS,
  voiceSetting,
} from '../../../shared/config/voice-settings.ts';
import { OpenAiRealtime } from './openai-realtime.ts';
import { createGuardedFetch, type FetchLike } from '../../../shared/net/guarded-fetch.ts';
import type { OrganizationSpeechKeys } from '../../../shared/services/speech-keys.ts';
import {
  ProviderError,
  type CallProviders,
  type CallTextToSpeech,
  type LanguageModel,
  type ModelEvent,
  type ModelRequest,
  type SpeechToText,
  type TextToSpeech,
} from './interfaces.ts';

/**
 * The `openai` client reports any failure to connect as "Connection error.", its reason (the SSRF
 * guard's refusal, a reset) being the cause: the call's log names the reason.
 */
function openAiFailure(error: unknown): string {
  const { message, cause } = error as { message: string; cause?: unknown };
  return cause instanceof Error ? `${message} ${cause.message}` : message;
}

export class OpenAiChatModel implements LanguageModel {
  readonly name: string;
  readonly defaultModel: string;
  private readonly client: OpenAI;

  constructor(settings: { apiUrl: string; apiKey: string; model: string; fetch?: typeof fetch; name?: string }) {
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.apiUrl,
      maxRetries: 1,
      timeout: 20_000,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    });
    this.defaultModel = settings.model;
    this.name = settings.name ?? `language model at ${new URL(settings.apiUrl).host}`;
  }

  /**
   * The API's model list (`GET /models`, which every OpenAI-compatible API serves): a cheap request
   * that leaves a kept-alive connection (DNS, TCP, TLS done) for the call's first answer.
   */
  async warmUp(): Promise<void> {
    await this.client.models.list({ signal: AbortSignal.timeout(5_000) });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: request.model,
          temperature: request.temperature,
          messages: request.messages,
          stream: true,
          ...(request.tools.length
            ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: tool })) }
            : {}),
        },
        { signal },
      );
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) yield { type: 'text', text: delta.content };
        for (const call of delta?.tool_calls ?? []) {
          const current = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
          current.id ||= call.id ?? '';
          current.name += call.function?.name ?? '';
          current.arguments += call.function?.arguments ?? '';
          calls.set(call.index, current);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw new ProviderError(this.name, openAiFailure(error), { cause: error });
    }
    for (const call of calls.values()) yield { type: 'tool_call', ...call };
  }
}

/**
 * The ElevenLabs SDK, loaded once when first needed: its 12,000 modules take about 1.4 s of CPU to
 * load, which every process importing this module paid (each test file of the media code among
 * them) though only ElevenLabs voices use it. A media service loads it before it takes calls
 * (media/src/main.ts, local/media-service.ts), so that no call waits on it.
 */
let elevenLabsSdk: Promise<typeof import('@elevenlabs/elevenlabs-js')> | undefined;
export const loadElevenLabs = () => (elevenLabsSdk ??= import('@elevenlabs/elevenlabs-js'));

export class ElevenLabsTextToSpeech implements TextToSpeech {
  readonly name = 'ElevenLabs';
  private client: Promise<ElevenLabsClient> | undefined;
  private readonly defaultVoice: string;
  private readonly model: string;

  constructor(private readonly settings: { apiKey: string; baseUrl?: string; voice?: string; model?: string }) {
    this.defaultVoice = settings.voice ?? DEFAULT_VOICES.elevenlabs;
    this.model = settings.model ?? VOICE_SETTINGS.ELEVENLABS_MODEL.default;
  }

  private clientOnce(): Promise<ElevenLabsClient> {
    return (this.client ??= loadElevenLabs().then(
      ({ ElevenLabsClient }) =>
        new ElevenLabsClient({
          apiKey: this.settings.apiKey,
          maxRetries: 0,
          timeoutInSeconds: 15,
          ...(this.settings.baseUrl ? { baseUrl: this.settings.baseUrl } : {}),
        }),
    ));
  }

  /**
   * A call's sentences over one WebSocket (elevenlabs-multi-stream.ts), not a request each; the
   * HTTP stream below still speaks what no call owns (greetings kept for many calls, a warm
   * transfer's message).
   */
  forCall(): CallTextToSpeech {
    return new ElevenLabsCallSpeech({
      apiKey: this.settings.apiKey,
      baseUrl: this.settings.baseUrl,
      defaultVoice: this.defaultVoice,
      model: this.model,
    });
  }

  async *stream(
    text: string,
    options: { voice?: string; language: string },
    signal: AbortSignal,
  ): AsyncIterable<Uint8Array> {
    try {
      // ulaw_8000 is the telephony format itself: no transcoding.
      const client = await this.clientOnce();
      const audio = await client.textToSpeech.stream(
        options.voice ?? this.defaultVoice,
        { text, modelId: this.model, outputFormat: 'ulaw_8000', languageCode: options.language.slice(0, 2) },
        { abortSignal: signal },
      );
      for await (const chunk of audio) yield chunk;
    } catch (error) {
      if (signal.aborted) return;
      throw new ProviderError(this.name, (error as Error).message, { cause: error });
    }
  }
}

/** OpenAI speech: 24 kHz 16-bit PCM, brought to 8 kHz mu-law here through a low-pass filter (audio/resampler.ts). */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly name = 'OpenAI speech';
  private readonly client: OpenAI;
  private readonly defaultVoice: string;
  private readonly model: string;

  constructor(settings: { apiUrl: string; apiKey: string; voice?: string; model?: string; fetch?: FetchLike }) {
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.apiUrl,
      maxRetries: 0,
      timeout: 15_000,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    });
    this.defaultVoice = settings.voice ?? DEFAULT_VOICES.openai;
    this.model = settings.model ?? VOICE_SETTINGS.OPENAI_TTS_MODEL.default;
  }

  async *stream(
    text: string,
    options: { voice?: string; language: string },
    signal: AbortSignal,
  ): AsyncIterable<Uint8Array> {
    try {
      const response = await this.client.audio.speech.create(
        { model: this.model, voice: options.voice ?? this.defaultVoice, input: text, response_format: 'pcm' },
        { signal },
      );
      if (!response.body) return;
      const downsampler = new Downsampler();
      let carry = Buffer.alloc(0);
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const bytes = Buffer.concat([carry, chunk]);
        const usable = bytes.length - (bytes.length % 2);
        carry = bytes.subarray(usable);
        const samples = new Int16Array(usable / 2);
        for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
        const out = downsampler.push(samples);
        if (out.length) yield encodeMulaw(out);
      }
      const tail = downsampler.flush();
      if (tail.length) yield encodeMulaw(tail);
    } catch (error) {
      if (signal.aborted) return;
      throw new ProviderError(this.name, openAiFailure(error), { cause: error });
    }
  }
}

/** The platform's providers, each made when a call needs it, from the keys in the VoiceProviders secret. */
export interface PlatformProviders {
  stt(): Promise<SpeechToText>;
  llm(): Promise<LanguageModel>;
  tts(): Promise<TextToSpeech>;
  /** The speech-to-speech model of the `realtime` engine (a session per call). */
  realtime(): Promise<OpenAiRealtime>;
  /** The text-to-speech provider setting (`elevenlabs` or `openai`). */
  readonly ttsProvider: (typeof TTS_PROVIDERS)[number];
}

/** The JSON keys of the VoiceProviders secret (infra/constructs/voice-providers.ts creates it with each empty). */
export type VoiceProviderKey = 'deepgramApiKey' | 'llmApiKey' | 'elevenLabsApiKey' | 'realtimeApiKey';

/**
 * Reads keys of the VoiceProviders secret; a key missing or empty fails, naming it. Read at run
 * time through Powertools Parameters (cached 5 minutes, read again at once while a key is missing):
 * the task starts without them, and keys filled or rotated later reach running tasks.
 */
export type VoiceKeyReader = <K extends VoiceProviderKey>(keys: readonly K[]) => Promise<Record<K, string>>;

const secretKeyReader: VoiceKeyReader = (keys) => getSecretFields('VOICE_PROVIDERS_SECRET_ARN', keys);

/**
 * The platform's providers, with the task's settings (`env`: URLs, models, voice; see
 * shared/config/voice-settings.ts) and keys from the VoiceProviders secret read when a call needs
 * them: a task starts and is healthy with no key set (the first deploy), and a call that needs a
 * missing key fails naming it. Only what is fixed at deploy is checked at start: the TTS provider
 * and the model's URL and name. Clients are made again only when a key changes.
 */
export function platformProviders(
  env: NodeJS.ProcessEnv,
  readKeys: VoiceKeyReader = secretKeyReader,
): PlatformProviders {
  const ttsProvider = voiceSetting(env, 'TTS_PROVIDER');
  if (!TTS_PROVIDERS.includes(ttsProvider as PlatformProviders['ttsProvider']))
    throw new Error(`TTS_PROVIDER must be one of ${TTS_PROVIDERS.join(', ')}, not '${ttsProvider}'`);
  const { LLM_API_URL: llmApiUrl, LLM_MODEL: llmModel } = env;
  if (!llmApiUrl || !llmModel)
    throw new Error(
      'The media service cannot start: the settings LLM_API_URL and LLM_MODEL must be set (context llmApiUrl, llmModel)',
    );
  const voice = voiceSetting(env, 'TTS_VOICE') || undefined;
  /** One client per key: a rotated key makes a new one. */
  const madeWith = <T>(make: (key: string) => T) => {
    let last: { key: string; client: T } | undefined;
    return (key: string): T => {
      if (last?.key !== key) last = { key, client: make(key) };
      return last.client;
    };
  };
  const deepgram = madeWith(
    (apiKey) =>
      new DeepgramSpeechToText({
        apiKey,
        baseUrl: env.DEEPGRAM_API_URL || undefined,
        model: voiceSetting(env, 'DEEPGRAM_MODEL'),
        fluxModel: voiceSetting(env, 'DEEPGRAM_FLUX_MODEL'),
      }),
  );
  const model = madeWith((apiKey) => new OpenAiChatModel({ apiUrl: llmApiUrl, apiKey, model: llmModel }));
  const elevenLabs = madeWith(
    (apiKey) =>
      new ElevenLabsTextToSpeech({
        apiKey,
        baseUrl: env.ELEVENLABS_API_URL || undefined,
        voice,
        model: voiceSetting(env, 'ELEVENLABS_MODEL'),
      }),
  );
  const openAiSpeech = madeWith(
    (apiKey) =>
      new OpenAiTextToSpeech({ apiUrl: llmApiUrl, apiKey, voice, model: voiceSetting(env, 'OPENAI_TTS_MODEL') }),
  );
  const realtime = madeWith(
    (apiKey) =>
      new OpenAiRealtime({
        apiUrl: env.REALTIME_API_URL || DEFAULT_REALTIME_API_URL,
        apiKey,
        model: voiceSetting(env, 'REALTIME_MODEL'),
        // The local fake's self-signed certificate (the local stack and tests only; unset on AWS).
        ca: env.REALTIME_TLS_CA || undefined,
      }),
  );
  return {
    ttsProvider: ttsProvider as PlatformProviders['ttsProvider'],
    realtime: async () => realtime((await readKeys(['realtimeApiKey'])).realtimeApiKey),
    stt: async () => deepgram((await readKeys(['deepgramApiKey'])).deepgramApiKey),
    llm: async () => model((await readKeys(['llmApiKey'])).llmApiKey),
    tts: async () =>
      ttsProvider === 'elevenlabs'
        ? elevenLabs((await readKeys(['elevenLabsApiKey'])).elevenLabsApiKey)
        : openAiSpeech((await readKeys(['llmApiKey'])).llmApiKey),
  };
}

/**
 * An organization's OpenAI speech API is at a URL it chose (`api_url`): reached only through the
 * SSRF guard, which checks the address connected to (every redirect too) and caps an utterance's
 * exchange. 8 MiB is about 87 s of the API's 24 kHz 16-bit audio, far more than one sentence.
 */
export const organizationSpeechFetch: FetchLike = createGuardedFetch({
  timeoutMs: 30_000,
  maxResponseBytes: 8 * 1024 * 1024,
});

/**
 * Speech providers with an organization's own keys (PUT /speech-keys/{provider}): Deepgram and
 * ElevenLabs at the platform's URLs, OpenAI speech at the organization's URL (default OpenAI's),
 * through the SSRF guard; the platform's models and voice. Deepgram for speech to text;
 * ElevenLabs, else OpenAI speech, for text to speech.
 */
export function organizationSpeechProviders(
  env: NodeJS.ProcessEnv,
  keys: OrganizationSpeechKeys,
): Partial<Pick<CallProviders, 'stt' | 'tts'>> {
  const { deepgram, elevenlabs, openai } = keys;
  const voice = voiceSetting(env, 'TTS_VOICE') || undefined;
  return {
    ...(deepgram
      ? {
          stt: new DeepgramSpeechToText({
            apiKey: deepgram.apiKey,
            baseUrl: env.DEEPGRAM_API_URL || undefined,
            model: voiceSetting(env, 'DEEPGRAM_MODEL'),
            fluxModel: voiceSetting(env, 'DEEPGRAM_FLUX_MODEL'),
          }),
        }
      : {}),
    ...(elevenlabs
      ? {
          tts: new ElevenLabsTextToSpeech({
            apiKey: elevenlabs.apiKey,
            baseUrl: env.ELEVENLABS_API_URL || undefined,
            voice,
            model: voiceSetting(env, 'ELEVENLABS_MODEL'),
          }),
        }
      : openai
        ? {
            tts: new OpenAiTextToSpeech({
              apiUrl: openai.apiUrl ?? 'https://api.openai.com/v1',
              apiKey: openai.apiKey,
              fetch: organizationSpeechFetch,
              voice,
              model: voiceSetting(env, 'OPENAI_TTS_MODEL'),
            }),
          }
        : {}),
  };
}
