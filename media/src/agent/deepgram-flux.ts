/**
 * Speech to text with model-based end of turn: Deepgram Flux through the official SDK
 * (`listen.v2`). Flux says itself when the caller's turn ends, from the words as well as the
 * pause (`TurnInfo` `EndOfTurn`), and, when asked, when it probably has (`EagerEndOfTurn`, taken
 * back by `TurnResumed`). Its events become SpeechToTextEvents: `StartOfTurn` / `Update` words are
 * interim results (they barge in), `EndOfTurn` the turn's final result. The base URL is a setting,
 * so the local stack and tests point the same code at the local fake (local/fakes/deepgram-flux.ts).
 */
import type { DeepgramClient } from '@deepgram/sdk';
import { audioChunks } from './audio-chunks.ts';
import {
  ProviderError,
  type SpeechToTextEvents,
  type SpeechToTextStream,
  type TranscriptResult,
} from './interfaces.ts';

/** End-of-turn confidence that ends a turn (Deepgram's default). */
export const EOT_THRESHOLD = 0.7;
/** End-of-turn confidence of an eager end of turn: pipecat's and Deepgram's suggested value. */
export const EAGER_EOT_THRESHOLD = 0.5;
/** A turn ends this long after the last speech whatever the confidence (Deepgram's default). */
export const EOT_TIMEOUT_MS = 5000;
/** Flux works best with 80 ms of audio a message (Deepgram's guidance). */
export const FLUX_CHUNK_MS = 80;

type FluxSocket = Awaited<ReturnType<DeepgramClient['listen']['v2']['connect']>>;
type FluxMessage = Parameters<NonNullable<Parameters<FluxSocket['on']>[1]>>[0];
type TurnInfo = Extract<FluxMessage, { type: 'TurnInfo' }>;

/**
 * A Flux stream for one call. A stream that drops is not reopened (Flux's turn state would be
 * lost with it): the call fails, naming Deepgram.
 */
export async function openFluxStream(
  client: DeepgramClient,
  settings: { name: string; model: string; language: string; eager: boolean },
  events: SpeechToTextEvents,
): Promise<SpeechToTextStream> {
  const { name } = settings;
  let closing = false;
  const socket = await client.listen.v2.connect({
    model: settings.model,
    encoding: 'mulaw',
    sample_rate: 8000,
    eot_threshold: EOT_THRESHOLD,
    eot_timeout_ms: EOT_TIMEOUT_MS,
    ...(settings.eager ? { eager_eot_threshold: EAGER_EOT_THRESHOLD } : {}),
    // The multilingual model takes the call's language as a hint; the English one has no choice.
    ...(settings.model.endsWith('-multi') ? { language_hint: settings.language.split('-')[0] } : {}),
    Authorization: '', // the client's apiKey supplies the header
    reconnectAttempts: 0,
    connectionTimeoutInSeconds: 5,
  });
  const lost = (reason: string) => {
    if (closing) return;
    closing = true;
    events.failed(new ProviderError(name, reason));
  };
  socket.on('message', (message) => {
    if (message.type === 'TurnInfo') onTurnInfo(message, events);
    else if (message.type === 'Error') lost(`Flux error ${message.code}: ${message.description}`);
  });
  socket.on('error', (error) => lost(error.message));
  socket.on('close', (event) => lost(`Flux stream closed (${event.code} ${event.reason})`));
  socket.connect();
  try {
    await socket.waitForOpen();
  } catch (error) {
    closing = true;
    socket.close();
    throw new ProviderError(name, `could not open the Flux stream: ${(error as Error).message}`, { cause: error });
  }
  const chunks = audioChunks((chunk) => {
    if (socket.readyState === 1) socket.sendMedia(chunk);
  }, FLUX_CHUNK_MS);
  return {
    send: (mulaw) => {
      if (!closing) chunks.write(mulaw);
    },
    close: async () => {
      if (closing) return;
      chunks.flush();
      closing = true;
      chunks.stop();
      if (socket.readyState === 1) socket.sendCloseStream({ type: 'CloseStream' });
      socket.close();
    },
  };
}

function onTurnInfo(message: TurnInfo, events: SpeechToTextEvents): void {
  const result = (final: boolean): TranscriptResult => ({
    text: message.transcript,
    isFinal: final,
    speechFinal: final,
    start: message.words[0]?.start ?? message.audio_window_start,
    end: message.words.at(-1)?.end ?? message.audio_window_end,
  });
  switch (message.event) {
    case 'StartOfTurn':
    case 'Update':
      if (message.transcript.trim()) events.transcript(result(false));
      return;
    case 'EagerEndOfTurn':
      events.eagerEndOfTurn?.(result(false));
      return;
    case 'TurnResumed':
      events.turnResumed?.();
      return;
    case 'EndOfTurn':
      events.transcript(result(true));
  }
}
