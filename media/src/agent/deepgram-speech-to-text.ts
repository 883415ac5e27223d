/**
 * Speech to text: Deepgram live streaming through its official SDK (`listen.v1`; with Flux's end
 * of turn, `listen.v2` in deepgram-flux.ts), the caller's
 * mu-law audio sent in chunks, the results as SpeechToTextEvents; a dropped stream reconnected
 * once with the audio it missed. The base URL is a setting, so the local stack and tests point
 * the same code at the local fake (local/fakes/deepgram-live.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DeepgramClient } from '@deepgram/sdk';
import { audioChunks } from './audio-chunks.ts';
import { VOICE_SETTINGS } from '../../../shared/config/voice-settings.ts';
import { openFluxStream } from './deepgram-flux.ts';
import {
  ProviderError,
  type EndOfTurnOptions,
  type SpeechToText,
  type SpeechToTextEvents,
  type SpeechToTextStream,
} from './interfaces.ts';

/** Turn detection: a pause this long ends an utterance (Deepgram `endpointing`). */
export const ENDPOINTING_MS = 300;
/** Fallback end of turn when endpointing misses one (Deepgram `utterance_end_ms`, at least 1000). */
export const UTTERANCE_END_MS = 1000;

/**
 * The caller's audio goes to Deepgram in chunks of this much, not frame by frame: one WebSocket
 * write (a masked frame and a system call) per 40 ms instead of per 20 ms frame. Deepgram takes
 * 20 to 250 ms per message; LiveKit's Deepgram plugin sends 50 ms. A chunk's first frame reaches
 * Deepgram at most 20 ms later than it would alone.
 */
export const STT_CHUNK_MS = 40;

/**
 * Closing, Deepgram's answer to CloseStream is awaited this long at most: the final results of the
 * audio it still holds (the caller's last words, when the call stopped mid-sentence), then its close.
 */
export const CLOSE_RESULTS_WAIT_MS = 2000;

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

  private readonly fluxModel: string;

  constructor(settings: {
    apiKey: string;
    baseUrl?: string;
    model?: string;
    fluxModel?: string;
    keepAliveAfterMs?: number;
  }) {
    this.client = new DeepgramClient({
      apiKey: settings.apiKey,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    });
    this.model = settings.model ?? VOICE_SETTINGS.DEEPGRAM_MODEL.default;
    this.fluxModel = settings.fluxModel ?? VOICE_SETTINGS.DEEPGRAM_FLUX_MODEL.default;
    this.keepAliveAfterMs = settings.keepAliveAfterMs ?? KEEP_ALIVE_AFTER_MS;
  }

  /**
   * A live stream that survives a drop: a stream lost mid-call is opened again once, with the
   * audio of the gap sent when it is back, and its results' times shifted by the audio the earlier
   * streams had, so they stay on the call's timeline. A reopening that fails, or a reopened stream
   * that drops again within 10 s of audio, ends the call. KeepAlive messages keep the stream open
   * while no audio is sent.
   */
  async open(
    options: { language: string } & EndOfTurnOptions,
    events: SpeechToTextEvents,
  ): Promise<SpeechToTextStream> {
    if (options.endOfTurn === 'flux')
      return openFluxStream(
        this.client,
        { name: this.name, model: this.fluxModel, language: options.language, eager: options.eager === true },
        events,
      );
    let closing = false;
    /** Seconds of audio that streams before the current one received. */
    let offsetSeconds = 0;
    let currentBytes = 0;
    let lastSentAt = Date.now();
    let gap: Uint8Array[] | null = null;
    let gapBytes = 0;
    let reopened = false;
    /** Settles when the server has closed each stream. */
    const serverClosed = new WeakMap<ListenSocket, Promise<void>>();

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
      let closed!: () => void;
      serverClosed.set(socket, new Promise((resolve) => (closed = resolve)));
      socket.on('close', (event) => {
        closed();
        onLost(`live stream closed (${event.code} ${event.reason})`);
      });
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
        return events.failed(
          new ProviderError(this.name, `${reason}; reconnecting failed: ${(error as Error).message}`),
        );
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

    const chunks = audioChunks(send, STT_CHUNK_MS);

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
      send: (mulaw) => {
        if (!closing) chunks.write(mulaw);
      },
      close: async () => {
        if (closing) return;
        chunks.flush();
        closing = true;
        chunks.stop();
        clearInterval(keepAlive);
        if (socket.readyState === 1) {
          socket.sendCloseStream({ type: 'CloseStream' });
          // Its last results come before it closes: the caller's words that no pause had ended.
          const limit = new AbortController();
          const timedOut = sleep(CLOSE_RESULTS_WAIT_MS, undefined, { signal: limit.signal }).catch(() => {});
          await Promise.race([serverClosed.get(socket), timedOut]);
          limit.abort();
        }
        socket.close();
      },
    };
  }
}

type ListenSocket = Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>;
