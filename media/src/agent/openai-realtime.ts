/**
 * OpenAI's Realtime API (speech to speech) through the `openai` package's WebSocket client
 * (`openai/realtime/ws`, OpenAIRealtimeWS): one session per call, telephony audio as G.711 mu-law
 * both ways (`audio/pcmu`: no transcoding). A call of the `realtime` engine (its brain:
 * ../call/realtime-brain.ts) reaches the session through three seams, so the rest of the pipeline
 * is the cascade's: the caller's audio and the model's transcripts of it as speech to text
 * (`listener`), its fixed phrases said by the model as text to speech (`voice`), and the answers.
 * The connection opens while a dialed call rings (`connectEarly`, call-sessions.ts) or at the first
 * need; the session is configured at the first need (the greeting, or the caller's audio), and
 * closes with the listener, when the call ends.
 */
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { ENDPOINTING_MS } from './deepgram-speech-to-text.ts';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { RealtimeClientEvent, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { addResponseUsage, NO_USAGE, type SpeechToSpeechUsage } from '../../../shared/domain/speech-to-speech-cost.ts';
import {
  ProviderError,
  type SpeechToText,
  type SpeechToTextEvents,
  type SpeechToTextStream,
  type TextToSpeech,
  type ToolDefinition,
} from './interfaces.ts';

/** The platform's realtime model and its account (the task's settings; the key from the VoiceProviders secret). */
export interface RealtimeSettings {
  apiUrl: string;
  apiKey: string;
  model: string;
  /** A certificate to trust besides the system's (the local fake's self-signed one; never set on AWS). */
  ca?: string;
}

/** What the agent is: set by its brain before the session opens. */
export interface RealtimeAgent {
  instructions: string;
  tools: ToolDefinition[];
  voice?: string;
  language: string;
}

/** The model that answers the caller's own speech, the input transcription of the caller's words. */
const TRANSCRIPTION_MODEL = 'gpt-4o-mini-transcribe';
/** The session must be configured within this long (connection, then `session.updated`). */
const OPEN_LIMIT_MS = 10_000;
/** Voices of the Realtime API (an agent's `voice` of another provider gets the default). */
const REALTIME_VOICES = new Set([
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
]);

type Listener = (event: RealtimeServerEvent) => void;

/** The platform's realtime client: a session per call. */
export class OpenAiRealtime {
  readonly name = 'OpenAI Realtime';
  private readonly client: OpenAI;

  constructor(private readonly settings: RealtimeSettings) {
    this.client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.apiUrl, maxRetries: 0 });
  }

  /** A call's realtime session (opened at its first use). */
  call(): RealtimeCall {
    return new RealtimeCall(
      this.name,
      () =>
        new OpenAIRealtimeWS(
          { model: this.settings.model, options: this.settings.ca ? { ca: this.settings.ca } : {} },
          this.client,
        ),
    );
  }
}

/** One call's session: its events to whoever listens, and the three seams of the call. */
export class RealtimeCall {
  agent: RealtimeAgent | null = null;
  private connection: Promise<OpenAIRealtimeWS> | null = null;
  private opening: Promise<OpenAIRealtimeWS> | null = null;
  private socket: OpenAIRealtimeWS | null = null;
  private readonly listeners = new Set<Listener>();
  /** The conversation's response under way, done at its `response.done`. */
  private conversationResponse: Promise<void> = Promise.resolve();
  private readonly failures = new Set<(error: ProviderError) => void>();
  private closed = false;
  /**
   * The tokens of every response the session ran (the run's cost): the answers, the fixed phrases
   * said out of band, and responses cancelled by a barge-in, all billed by the API.
   */
  private tokens: SpeechToSpeechUsage = { ...NO_USAGE };

  constructor(
    readonly name: string,
    private readonly connect: () => OpenAIRealtimeWS,
  ) {
    this.listener = { name, open: (_options, events) => this.listen(events) };
    this.voice = { name, stream: (text, _options, signal) => this.say(text, signal) };
  }

  /** The caller's audio in, the model's transcripts of their turns out (speech to text). */
  readonly listener: SpeechToText;
  /** Fixed phrases in the model's voice (text to speech): an out-of-band response that says them word for word. */
  readonly voice: TextToSpeech;

  /** The tokens of the session's responses so far. */
  usage(): SpeechToSpeechUsage {
    return { ...this.tokens };
  }

  /** Follows the session's events; returns the way to stop. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The session lost (closed by the API, a transport error, or a fatal error event). */
  onFailure(listener: (error: ProviderError) => void): () => void {
    this.failures.add(listener);
    return () => this.failures.delete(listener);
  }

  /** Sends a client event once the session is configured. */
  async send(event: RealtimeClientEvent): Promise<void> {
    const socket = await this.open();
    if (!this.closed) socket.send(event);
  }

  /**
   * Asks for a response and resolves with its id once created (`response.created` of the same
   * metadata): the session may run an out-of-band response at the same time.
   */
  async respond(response: Extract<RealtimeClientEvent, { type: 'response.create' }>['response']): Promise<string> {
    const request = randomUUID();
    const created = new Promise<string>((resolve) => {
      const stop = this.on((event) => {
        if (event.type === 'response.created' && event.response.metadata?.request === request) {
          stop();
          resolve(event.response.id ?? '');
        }
      });
    });
    if (response?.conversation !== 'none') {
      // The conversation runs one response at a time: one cancelled (a barge-in) ends at its
      // `response.done`, and a response asked before then is refused (conversation_already_has_active_response).
      const previous = this.conversationResponse;
      this.conversationResponse = this.responseDone(request);
      await previous;
    }
    await this.send({ type: 'response.create', response: { ...response, metadata: { request } } });
    return created;
  }

  /** Resolves at the `response.done` of the response asked as `request`, or when the session is lost. */
  private responseDone(request: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = () => {
        stop();
        stopFailure();
        resolve();
      };
      const stop = this.on((event) => {
        if (event.type === 'response.done' && event.response.metadata?.request === request) finish();
      });
      const stopFailure = this.onFailure(finish);
    });
  }

  /**
   * Connects now (TLS and the upgrade while the phone rings), so that the first words wait for the
   * session's configuration only. Rejects if the connection fails (the call then fails at its
   * first use, as without it).
   */
  async connectEarly(): Promise<void> {
    await this.connected();
  }

  /** New instructions and tools (a flow's step entered): the session is updated once it is configured. */
  update(changes: Pick<RealtimeAgent, 'instructions' | 'tools'>): void {
    if (!this.agent) throw new Error('the realtime session was updated before its agent was set');
    this.agent = { ...this.agent, ...changes };
    if (this.opening)
      void this.send({
        type: 'session.update',
        session: { type: 'realtime', instructions: changes.instructions, tools: functionTools(changes.tools) },
      }).catch(() => {}); // a session that failed has told its owner already (onFailure)
  }

  close(): void {
    this.closed = true;
    this.socket?.close();
  }

  private open(): Promise<OpenAIRealtimeWS> {
    this.opening ??= this.configure();
    return this.opening;
  }

  private connected(): Promise<OpenAIRealtimeWS> {
    this.connection ??= this.connectSocket();
    return this.connection;
  }

  /** The WebSocket, open, its events followed and its failures told. */
  private async connectSocket(): Promise<OpenAIRealtimeWS> {
    let socket: OpenAIRealtimeWS;
    try {
      socket = this.connect();
    } catch (error) {
      throw new ProviderError(this.name, (error as Error).message, { cause: error });
    }
    this.socket = socket;
    socket.on('event', (event) => {
      if (event.type === 'response.done' && event.response.usage)
        this.tokens = addResponseUsage(this.tokens, event.response.usage);
      for (const listener of [...this.listeners]) listener(event);
    });
    const fail = (message: string, cause?: unknown) => {
      if (this.closed) return;
      this.closed = true;
      const error = new ProviderError(this.name, message, { cause });
      for (const listener of [...this.failures]) listener(error);
    };
    socket.on('error', (error) => {
      // An error event about one request (a truncation past the audio, a cancel too late) leaves the
      // session usable: its owner hears it as an event; one without it (the transport) ends the call.
      if (!error.error) fail(error.message, error);
    });
    socket.socket.on('close', (code, reason) => fail(`session closed (${code} ${String(reason)})`));
    await new Promise<void>((resolve, reject) => {
      const limit = setTimeout(
        () => reject(new ProviderError(this.name, `no connection within ${OPEN_LIMIT_MS / 1000} s`)),
        OPEN_LIMIT_MS,
      );
      const stopFailure = this.onFailure((error) => {
        clearTimeout(limit);
        reject(error);
      });
      socket.socket.once('open', () => {
        clearTimeout(limit);
        stopFailure();
        resolve();
      });
    });
    return socket;
  }

  /** The session configured for the agent (`session.update` → `session.updated`), on its connection. */
  private async configure(): Promise<OpenAIRealtimeWS> {
    const agent = this.agent;
    if (!agent) throw new Error('the realtime session was used before its agent was set');
    const socket = await this.connected();
    if (this.closed) throw new ProviderError(this.name, 'session closed');
    const updated = new Promise<void>((resolve, reject) => {
      const limit = setTimeout(
        () => reject(new ProviderError(this.name, `no session within ${OPEN_LIMIT_MS / 1000} s`)),
        OPEN_LIMIT_MS,
      );
      const stopFailure = this.onFailure((error) => {
        clearTimeout(limit);
        reject(error);
      });
      const stop = this.on((event) => {
        if (event.type === 'session.updated') {
          clearTimeout(limit);
          stop();
          stopFailure();
          resolve();
        } else if (event.type === 'error') {
          clearTimeout(limit);
          stop();
          stopFailure();
          reject(new ProviderError(this.name, event.error.message));
        }
      });
    });
    socket.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions: agent.instructions,
        output_modalities: ['audio'],
        tools: functionTools(agent.tools),
        audio: {
          input: {
            format: { type: 'audio/pcmu' },
            transcription: { model: TRANSCRIPTION_MODEL, language: agent.language.slice(0, 2) },
            // The model's own turn detection; the answer and the barge-in are the call's to decide
            // (call/realtime-brain.ts): a fixed phrase must play, words not interruptible must not be cut.
            turn_detection: {
              type: 'server_vad',
              // The cascade's endpointing pause (deepgram-speech-to-text.ts): both engines end a turn alike.
              silence_duration_ms: ENDPOINTING_MS,
              create_response: false,
              interrupt_response: false,
            },
          },
          output: {
            format: { type: 'audio/pcmu' },
            ...(agent.voice && REALTIME_VOICES.has(agent.voice) ? { voice: agent.voice } : {}),
          },
        },
      },
    });
    await updated;
    return socket;
  }

  private async listen(events: SpeechToTextEvents): Promise<SpeechToTextStream> {
    const spoken = new Map<string, { start: number; end: number }>();
    const stopEvents = this.on((event) => {
      switch (event.type) {
        case 'input_audio_buffer.speech_started':
          spoken.set(event.item_id, { start: event.audio_start_ms / 1000, end: event.audio_start_ms / 1000 });
          events.voice?.(true);
          return events.speechStarted();
        case 'input_audio_buffer.speech_stopped': {
          const turn = spoken.get(event.item_id);
          if (turn) turn.end = event.audio_end_ms / 1000;
          return events.voice?.(false);
        }
        case 'conversation.item.input_audio_transcription.completed': {
          // The model's transcript of the turn its turn detection ended: the caller's whole turn.
          const turn = spoken.get(event.item_id) ?? { start: 0, end: 0 };
          spoken.delete(event.item_id);
          return events.transcript({ text: event.transcript, isFinal: true, speechFinal: true, ...turn });
        }
      }
    });
    const stopFailure = this.onFailure((error) => events.failed(error));
    await this.open();
    return {
      send: (mulaw) =>
        void this.send({ type: 'input_audio_buffer.append', audio: Buffer.from(mulaw).toString('base64') }),
      close: async () => {
        stopEvents();
        stopFailure();
        this.close();
      },
    };
  }

  private async *say(text: string, signal: AbortSignal): AsyncIterable<Uint8Array> {
    const queue: (Uint8Array | Error | null)[] = [];
    let wake: (() => void) | null = null;
    let responseId: string | null = null;
    const early: RealtimeServerEvent[] = [];
    const push = (item: Uint8Array | Error | null) => {
      queue.push(item);
      wake?.();
    };
    const take = (event: RealtimeServerEvent) => {
      if (event.type === 'response.output_audio.delta' && event.response_id === responseId)
        push(Buffer.from(event.delta, 'base64'));
      else if (event.type === 'response.done' && event.response.id === responseId)
        push(event.response.status === 'failed' ? new ProviderError(this.name, failureOf(event.response)) : null);
    };
    const stop = this.on((event) => (responseId === null ? early.push(event) : take(event)));
    const onAbort = () => push(null);
    signal.addEventListener('abort', onAbort);
    try {
      responseId = await this.respond({
        conversation: 'none',
        input: [],
        output_modalities: ['audio'],
        instructions: `Say exactly these words, nothing else, in the language they are in: "${text}"`,
      });
      for (const event of early.splice(0)) take(event);
      for (;;) {
        if (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift();
        if (item === undefined) continue;
        if (item === null || signal.aborted) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    } finally {
      stop();
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted && responseId)
        void this.send({ type: 'response.cancel', response_id: responseId }).catch(() => {});
    }
  }
}

const functionTools = (tools: ToolDefinition[]) => tools.map((tool) => ({ type: 'function' as const, ...tool }));

/** Why a response failed, from `response.done` (a rate limit, a server error). */
export function failureOf(response: {
  status_details?: { error?: { code?: string; type?: string; message?: string } | null } | null;
}): string {
  const error = response.status_details?.error;
  return `response failed: ${error?.code ?? error?.type ?? 'unknown'}${error?.message ? ` (${error.message})` : ''}`;
}
