/**
 * The real provider clients, each through its official SDK: Deepgram live streaming (speech to
 * text), any OpenAI-compatible chat API (the model), ElevenLabs streaming or OpenAI speech (text
 * to speech). Base URLs are settings so the local stack and tests can point the same code at the
 * fakes in local/fakes/, which speak the same protocols.
 */
import { DeepgramClient } from '@deepgram/sdk';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import OpenAI from 'openai';
import { encodeMulaw } from '../audio/mulaw.ts';
import { Downsampler } from '../audio/resampler.ts';
import type { OrganizationSpeechKeys } from '../../../shared/services/speech-keys.ts';
import {
  ProviderError,
  type CallProviders,
  type LanguageModel,
  type ModelEvent,
  type ModelRequest,
  type SpeechToText,
  type SpeechToTextEvents,
  type SpeechToTextStream,
  type TextToSpeech,
} from './interfaces.ts';

/** Turn detection: a pause this long ends an utterance (Deepgram `endpointing`). */
export const ENDPOINTING_MS = 300;
/** Fallback end of turn when endpointing misses one (Deepgram `utterance_end_ms`, at least 1000). */
export const UTTERANCE_END_MS = 1000;

/** Deepgram closes a stream that gets neither audio nor a KeepAlive for 10 s; keep it open from 4 s. */
export const KEEP_ALIVE_AFTER_MS = 4000;
/** Audio kept while a dropped stream reconnects (seconds of 8 kHz mu-law). */
const RECONNECT_BUFFER_BYTES = 5 * 8000;
/** A reopened stream that drops again before this much audio has failed for good. */
const STABLE_STREAM_BYTES = 10 * 8000;

export class DeepgramSpeechToText implements SpeechToText {
  readonly name = 'Deepgram';
  private readonly client: DeepgramClient;
  private readonly model: string;
  private readonly keepAliveAfterMs: number;

  constructor(settings: { apiKey: string; baseUrl?: string; model?: string; keepAliveAfterMs?: number }) {
    this.client = new DeepgramClient({
      apiKey: settings.apiKey,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
    this.model = settings.model ?? 'nova-3';
    this.keepAliveAfterMs = settings.keepAliveAfterMs ?? KEEP_ALIVE_AFTER_MS;
  }

  /**
   * A live stream that survives a drop: a stream lost mid-call is opened again once, with the
   * audio of the gap sent when it is back, and its results' times shifted by the audio the earlier
   * streams had, so they stay on the call's timeline. A reopening that fails, or a reopened stream
   * that drops again within 10 s of audio, ends the call. KeepAlive messages keep the stream open
   * while no audio is sent.
   */
  async open(options: { language: string }, events: SpeechToTextEvents): Promise<SpeechToTextStream> {
    let closing = false;
    /** Seconds of audio that streams before the current one received. */
    let offsetSeconds = 0;
    let currentBytes = 0;
    let lastSentAt = Date.now();
    let gap: Uint8Array[] | null = null;
    let gapBytes = 0;
    let reopened = false;

    const connect = async (): Promise<ListenSocket> => {
      const socket = await this.client.listen.v1.connect({
        model: this.model,
        language: options.language,
        encoding: 'mulaw',
        sample_rate: 8000,
        channels: 1,
        interim_results: 'true',
        endpointing: ENDPOINTING_MS,
        utterance_end_ms: UTTERANCE_END_MS,
        vad_events: 'true',
        punctuate: 'true',
        smart_format: 'true',
        Authorization: '', // the client's apiKey supplies the header
        // Reconnection is ours (below): the SDK's would resend nothing and lose the timeline.
        reconnectAttempts: 0,
        connectionTimeoutInSeconds: 5,
      });
      const base = offsetSeconds;
      let lost = false;
      const onLost = (reason: string) => {
        if (lost || closing) return;
        lost = true;
        void reconnect(reason);
      };
      socket.on('message', (message) => {
        if (message.type === 'Results') {
          const alternative = message.channel.alternatives[0];
          events.transcript({
            text: alternative?.transcript ?? '',
            isFinal: message.is_final === true,
            speechFinal: message.speech_final === true,
            start: base + message.start,
            end: base + message.start + message.duration,
          });
        } else if (message.type === 'SpeechStarted') events.speechStarted();
        else if (message.type === 'UtteranceEnd') events.utteranceEnd();
      });
      socket.on('error', (error) => onLost(error.message));
      socket.on('close', (event) => onLost(`live stream closed (${event.code} ${event.reason})`));
      socket.connect();
      try {
        await socket.waitForOpen();
      } catch (error) {
        lost = true;
        socket.close();
        throw new ProviderError(this.name, `could not open the live stream: ${(error as Error).message}`, {
          cause: error,
        });
      }
      return socket;
    };

    const reconnect = async (reason: string): Promise<void> => {
      if (gap || (reopened && currentBytes < STABLE_STREAM_BYTES))
        return events.failed(new ProviderError(this.name, reason)); // lost again straight away
      reopened = true;
      events.reconnecting?.(reason);
      offsetSeconds += currentBytes / 8000;
      currentBytes = 0;
      gap = [];
      gapBytes = 0;
      try {
        socket = await connect();
      } catch (error) {
        gap = null;
        return events.failed(new ProviderError(this.name, `${reason}; reconnecting failed: ${(error as Error).message}`));
      }
      const held = gap;
      gap = null;
      if (closing) return void socket.close();
      for (const chunk of held) send(chunk);
    };

    const send = (mulaw: Uint8Array): void => {
      if (gap) {
        gap.push(mulaw);
        gapBytes += mulaw.length;
        // Beyond the buffer the oldest audio is dropped and counted, so times stay right.
        while (gapBytes > RECONNECT_BUFFER_BYTES && gap.length > 1) {
          const dropped = gap.shift()!;
          gapBytes -= dropped.length;
          offsetSeconds += dropped.length / 8000;
        }
        return;
      }
      if (socket.readyState !== 1) return;
      socket.sendMedia(mulaw);
      currentBytes += mulaw.length;
      lastSentAt = Date.now();
    };

    let socket = await connect();
    const keepAlive = setInterval(
      () => {
        if (gap || socket.readyState !== 1 || Date.now() - lastSentAt < this.keepAliveAfterMs) return;
        socket.sendKeepAlive({ type: 'KeepAlive' });
        lastSentAt = Date.now();
      },
      Math.max(50, this.keepAliveAfterMs / 4),
    );
    keepAlive.unref();
    return {
      send,
      close: async () => {
        if (closing) return;
        closing = true;
        clearInterval(keepAlive);
        if (socket.readyState === 1) socket.sendCloseStream({ type: 'CloseStream' });
        socket.close();
      },
    };
  }
}

type ListenSocket = Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>;

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
      throw new ProviderError(this.name, (error as Error).message, { cause: error });
    }
    for (const call of calls.values()) yield { type: 'tool_call', ...call };
  }
}

export class ElevenLabsTextToSpeech implements TextToSpeech {
  readonly name = 'ElevenLabs';
  private readonly client: ElevenLabsClient;
  private readonly defaultVoice: string;
  private readonly model: string;

  constructor(settings: { apiKey: string; baseUrl?: string; voice?: string; model?: string }) {
    this.client = new ElevenLabsClient({
      apiKey: settings.apiKey,
      maxRetries: 0,
      timeoutInSeconds: 15,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
    this.defaultVoice = settings.voice ?? 'JBFqnCBsd6RMkjVDRZzb';
    this.model = settings.model ?? 'eleven_flash_v2_5';
  }

  async *stream(
    text: string,
    options: { voice?: string; language: string },
    signal: AbortSignal,
  ): AsyncIterable<Uint8Array> {
    try {
      // ulaw_8000 is the telephony format itself: no transcoding.
      const audio = await this.client.textToSpeech.stream(
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

  constructor(settings: { apiUrl: string; apiKey: string; voice?: string; model?: string }) {
    this.client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.apiUrl, maxRetries: 0, timeout: 15_000 });
    this.defaultVoice = settings.voice ?? 'alloy';
    this.model = settings.model ?? 'gpt-4o-mini-tts';
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
      throw new ProviderError(this.name, (error as Error).message, { cause: error });
    }
  }
}

/** Settings the Fargate task must have; a missing one stops it at start, named. */
export const PROVIDER_SECRETS = ['DEEPGRAM_API_KEY', 'LLM_API_KEY'] as const;

/**
 * The platform's providers from the environment (the task's secrets and settings):
 * `DEEPGRAM_API_KEY` (+ `DEEPGRAM_API_URL`, `DEEPGRAM_MODEL`), `LLM_API_KEY` + `LLM_API_URL` +
 * `LLM_MODEL`, `TTS_PROVIDER` = `elevenlabs` (default: `ELEVENLABS_API_KEY`, `ELEVENLABS_API_URL`,
 * `ELEVENLABS_MODEL`) or `openai` (the LLM_API_* account, `OPENAI_TTS_MODEL`), `TTS_VOICE`.
 * Throws one error naming every missing setting.
 */
export function providersFromEnvironment(env: NodeJS.ProcessEnv = process.env): CallProviders {
  const ttsProvider = env.TTS_PROVIDER ?? 'elevenlabs';
  if (ttsProvider !== 'elevenlabs' && ttsProvider !== 'openai')
    throw new Error(`TTS_PROVIDER must be 'elevenlabs' or 'openai', not '${ttsProvider}'`);
  const needed = [...PROVIDER_SECRETS, 'LLM_API_URL', ...(ttsProvider === 'elevenlabs' ? ['ELEVENLABS_API_KEY'] : [])];
  const missing = needed.filter((name) => !env[name]?.trim());
  if (missing.length) {
    throw new Error(
      `The media service cannot start: missing provider settings ${missing.join(', ')}. ` +
        'On AWS put the keys into the VoiceProvidersSecret secret (JSON keys deepgramApiKey, llmApiKey, elevenLabsApiKey) and set the llmApiUrl context value; see README "Voice agent".',
    );
  }
  const llm = new OpenAiChatModel({
    apiUrl: env.LLM_API_URL!,
    apiKey: env.LLM_API_KEY!,
    model: env.LLM_MODEL ?? 'gpt-4o-mini',
  });
  return {
    stt: new DeepgramSpeechToText({
      apiKey: env.DEEPGRAM_API_KEY!,
      baseUrl: env.DEEPGRAM_API_URL || undefined,
      model: env.DEEPGRAM_MODEL || undefined,
    }),
    llm,
    tts:
      ttsProvider === 'elevenlabs'
        ? new ElevenLabsTextToSpeech({
            apiKey: env.ELEVENLABS_API_KEY!,
            baseUrl: env.ELEVENLABS_API_URL || undefined,
            voice: env.TTS_VOICE || undefined,
            model: env.ELEVENLABS_MODEL || undefined,
          })
        : new OpenAiTextToSpeech({
            apiUrl: env.LLM_API_URL!,
            apiKey: env.LLM_API_KEY!,
            voice: env.TTS_VOICE || undefined,
            model: env.OPENAI_TTS_MODEL || undefined,
          }),
  };
}

/**
 * Speech providers with an organization's own keys (PUT /speech-keys/{provider}), at the platform's
 * URLs, models and voice: Deepgram for speech to text; ElevenLabs, else OpenAI speech, for text to speech.
 */
export function organizationSpeechProviders(
  env: NodeJS.ProcessEnv,
  keys: OrganizationSpeechKeys,
): Partial<Pick<CallProviders, 'stt' | 'tts'>> {
  const { deepgram, elevenlabs, openai } = keys;
  const voice = env.TTS_VOICE || undefined;
  return {
    ...(deepgram
      ? {
          stt: new DeepgramSpeechToText({
            apiKey: deepgram.apiKey,
            baseUrl: env.DEEPGRAM_API_URL || undefined,
            model: env.DEEPGRAM_MODEL || undefined,
          }),
        }
      : {}),
    ...(elevenlabs
      ? {
          tts: new ElevenLabsTextToSpeech({
            apiKey: elevenlabs.apiKey,
            baseUrl: env.ELEVENLABS_API_URL || undefined,
            voice,
            model: env.ELEVENLABS_MODEL || undefined,
          }),
        }
      : openai
        ? {
            tts: new OpenAiTextToSpeech({
              apiUrl: openai.apiUrl ?? 'https://api.openai.com/v1',
              apiKey: openai.apiKey,
              voice,
              model: env.OPENAI_TTS_MODEL || undefined,
            }),
          }
        : {}),
  };
}
