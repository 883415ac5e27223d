/**
 * Seams between the call loop and the speech / model providers. Production and local runs use the
 * same clients (providers.ts); locally they point at fakes that speak the providers' protocols.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { RealtimeCall } from './openai-realtime.ts';

export type ChatMessage = ChatCompletionMessageParam;

export interface TranscriptResult {
  text: string;
  /** Final for this stretch of audio (Deepgram `is_final`); interim results may still change. */
  isFinal: boolean;
  /** The speaker paused long enough to end the utterance (Deepgram `speech_final`). */
  speechFinal: boolean;
  /** Seconds from the start of the audio stream. */
  start: number;
  end: number;
}

export interface SpeechToTextEvents {
  speechStarted: () => void;
  transcript: (result: TranscriptResult) => void;
  /** No words for a while after the last final result (Deepgram `UtteranceEnd`). */
  utteranceEnd: () => void;
  /**
   * The turn has probably ended (Deepgram Flux `EagerEndOfTurn`): its words so far. An answer may
   * start; `turnResumed` or an end of turn with other words throws it away.
   */
  eagerEndOfTurn?: (result: TranscriptResult) => void;
  /** The caller went on after an eager end of turn (Flux `TurnResumed`). */
  turnResumed?: () => void;
  /**
   * The caller's voice began (true) or stopped (false), by a provider whose turn detection tells
   * both (the realtime session's `speech_started` / `speech_stopped`; Deepgram's `SpeechStarted` has
   * no end): while it lasts the caller is speaking, though no words come until the turn ends.
   */
  voice?: (active: boolean) => void;
  /** The stream dropped and is being opened again (the call goes on; audio of the gap follows). */
  reconnecting?: (reason: string) => void;
  /** The stream is lost for good: the call cannot go on. */
  failed: (error: Error) => void;
}

export interface SpeechToTextStream {
  /** 8 kHz mu-law, as it came from the telephony provider. */
  send(mulaw: Uint8Array): void;
  /** Closes the stream once the results of the audio sent are in (bounded): those come before it resolves. */
  close(): Promise<void>;
}

/** What ends the caller's turn: a pause (Deepgram nova-3's endpointing), or Deepgram Flux's turn detection. */
export interface EndOfTurnOptions {
  endOfTurn?: 'pause' | 'flux';
  /** With Flux: `EagerEndOfTurn` and `TurnResumed` too. */
  eager?: boolean;
}

export interface SpeechToText {
  readonly name: string;
  open(options: { language: string } & EndOfTurnOptions, events: SpeechToTextEvents): Promise<SpeechToTextStream>;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  parameters: Record<string, unknown>;
}

export type ModelEvent =
  { type: 'text'; text: string } | { type: 'tool_call'; id: string; name: string; arguments: string };

export interface ModelRequest {
  model: string;
  temperature: number;
  messages: ChatMessage[];
  tools: ToolDefinition[];
}

export interface LanguageModel {
  readonly name: string;
  readonly defaultModel: string;
  /** Streams the answer: text as it is generated, then each complete tool call. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /** Opens the connection a first answer will use (a call about to start); its failure is the answer's to report. */
  warmUp?(): Promise<void>;
}

export interface TextToSpeech {
  readonly name: string;
  /** 8 kHz mu-law audio, as it is generated. */
  stream(text: string, options: { voice?: string; language: string }, signal: AbortSignal): AsyncIterable<Uint8Array>;
  /** The same voice for one call's sentences, on the call's own connection (closed with the call). */
  forCall?(): CallTextToSpeech;
}

/** A call's own text-to-speech (TextToSpeech.forCall): what it holds open goes when the call ends. */
export interface CallTextToSpeech extends TextToSpeech {
  close(): void;
}

/** A chat needs the model only; speech is there for calls and browser voice. */
export interface CallProviders {
  stt?: SpeechToText;
  llm: LanguageModel;
  tts?: TextToSpeech;
  /** The `realtime` engine's session (speech to speech): it is then also `stt` and `tts`. */
  realtime?: RealtimeCall;
}

/** A provider failed: the call ends `failed`, naming it. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
  }
}
