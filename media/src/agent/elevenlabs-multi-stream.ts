/**
 * A call's ElevenLabs speech over one WebSocket: the multi-context stream-input protocol
 * (`/v1/text-to-speech/{voice_id}/multi-stream-input`, which the ElevenLabs JS SDK has no client
 * for), each sentence a context of its own. A sentence over HTTP is a request of its own (about
 * 0.9 ms of CPU each, docs/benchmarks.md); here it is three small messages on the call's
 * connection, opened at its first sentence and closed with the call. ElevenLabs allows 5 contexts
 * at once on a connection and advises one connection per conversation: a call whose sentences
 * overlap more than that opens another.
 *
 * Per sentence: `{text: ' ', context_id}` opens the context, `{text, context_id, flush: true}`
 * generates it whole, `{context_id, close_context: true}` ends it once generated; the audio comes
 * as `{audio (base64), contextId}` messages, then `{isFinal: true, contextId}`. A sentence cut
 * off (its signal aborts) stops reading: what still arrives for it is dropped (its context was
 * closed with its text, so ElevenLabs ends it once generated).
 */
import { WebSocket, type RawData } from 'ws';
import { ProviderError, type CallTextToSpeech } from './interfaces.ts';

/** ElevenLabs' limit of contexts open at once on one connection. */
export const MAX_CONTEXTS_PER_CONNECTION = 5;
/** How long a context may wait for text before ElevenLabs closes it (s; its maximum): a call's pauses are long. */
const INACTIVITY_TIMEOUT_S = 180;
const DEFAULT_URL = 'https://api.elevenlabs.io';

export interface ElevenLabsStreamSettings {
  apiKey: string;
  baseUrl?: string;
  defaultVoice: string;
  model: string;
  /** A connection not open after this long fails the sentence (ms); default 5,000. */
  connectTimeoutMs?: number;
}

type SpeechOptions = { voice?: string; language: string };

/** The connection closed (by ElevenLabs, or the network). */
class StreamClosed extends Error {}

/** One sentence's audio as it arrives, until its final message or a failure. */
class ContextAudio {
  private readonly chunks: Buffer[] = [];
  private done = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.changed();
  }

  end(failure: Error | null = null): void {
    if (this.done) return;
    this.done = true;
    this.failure = failure;
    this.changed();
  }

  async *read(signal: AbortSignal): AsyncIterable<Buffer> {
    const onAbort = () => this.changed();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (signal.aborted) return;
        const chunk = this.chunks.shift();
        if (chunk) yield chunk;
        else if (this.failure) throw this.failure;
        else if (this.done) return;
        else await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private changed(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/** One multi-context connection: a voice, a model and a language (they are the URL's). */
class StreamConnection {
  readonly contexts = new Map<string, ContextAudio>();
  private readonly socket: WebSocket;
  private readonly opened: Promise<void>;
  private closedWith: StreamClosed | null = null;

  constructor(url: string, apiKey: string, connectTimeoutMs: number) {
    this.socket = new WebSocket(url, { headers: { 'xi-api-key': apiKey }, handshakeTimeout: connectTimeoutMs });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
      this.socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`the connection was refused (${response.statusCode})`)),
      );
    });
    this.opened.catch(() => {});
    this.socket.on('message', (data) => this.received(data));
    this.socket.on('error', () => {});
    this.socket.on('close', (code, reason) => {
      this.closedWith = new StreamClosed(`the stream closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
      for (const context of this.contexts.values()) context.end(this.closedWith);
      this.contexts.clear();
    });
  }

  /** Open or opening (not closed). */
  get live(): boolean {
    return this.closedWith === null;
  }

  /** It takes another sentence: live, with room for a context. */
  get usable(): boolean {
    return this.live && this.contexts.size < MAX_CONTEXTS_PER_CONNECTION;
  }

  async *speak(id: string, text: string, signal: AbortSignal): AsyncIterable<Buffer> {
    const audio = new ContextAudio();
    this.contexts.set(id, audio);
    try {
      await this.opened;
      if (this.closedWith) throw this.closedWith;
      this.send({ text: ' ', context_id: id });
      this.send({ text: `${text} `, context_id: id, flush: true });
      this.send({ context_id: id, close_context: true });
      yield* audio.read(signal);
    } finally {
      // Cut off (or failed): its late audio finds no context and is dropped.
      this.contexts.delete(id);
    }
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.send({ close_socket: true });
    this.socket.close();
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private received(data: RawData): void {
    let message: { audio?: unknown; isFinal?: unknown; contextId?: unknown; error?: unknown; message?: unknown };
    try {
      message = JSON.parse(data.toString()) as typeof message;
    } catch {
      return;
    }
    const context = typeof message.contextId === 'string' ? this.contexts.get(message.contextId) : undefined;
    if (message.error !== undefined && !context) {
      const failure = new Error(String(message.message ?? message.error));
      for (const open of this.contexts.values()) open.end(failure);
      return;
    }
    if (!context) return;
    if (typeof message.audio === 'string' && message.audio) context.push(Buffer.from(message.audio, 'base64'));
    if (message.error !== undefined) context.end(new Error(String(message.message ?? message.error)));
    else if (message.isFinal === true) context.end();
  }
}

/** A call's ElevenLabs speech: its connections, one per voice and language it speaks in (usually one). */
export class ElevenLabsCallSpeech implements CallTextToSpeech {
  readonly name = 'ElevenLabs';
  private readonly connections = new Map<string, StreamConnection[]>();
  private nextContext = 0;
  private closed = false;

  constructor(private readonly settings: ElevenLabsStreamSettings) {}

  async *stream(text: string, options: SpeechOptions, signal: AbortSignal): AsyncIterable<Uint8Array> {
    try {
      for (let attempt = 1; ; attempt++) {
        if (this.closed) throw new Error('the call has ended');
        let heard = false;
        try {
          for await (const chunk of this.connectionFor(options).speak(`s${++this.nextContext}`, text, signal)) {
            heard = true;
            yield chunk;
          }
          return;
        } catch (error) {
          // A connection that closed before any of the sentence came (ElevenLabs closes one idle
          // past its inactivity timeout) is opened again, once.
          if (heard || attempt > 1 || !(error instanceof StreamClosed)) throw error;
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw new ProviderError(this.name, (error as Error).message, { cause: error });
    }
  }

  close(): void {
    this.closed = true;
    for (const list of this.connections.values()) for (const connection of list) connection.close();
    this.connections.clear();
  }

  private connectionFor(options: SpeechOptions): StreamConnection {
    const voice = options.voice ?? this.settings.defaultVoice;
    const language = options.language.slice(0, 2);
    const key = `${voice}\n${language}`;
    const list = (this.connections.get(key) ?? []).filter((connection) => connection.live);
    let connection = list.find((open) => open.usable);
    if (!connection) {
      connection = new StreamConnection(
        multiStreamUrl(this.settings.baseUrl ?? DEFAULT_URL, voice, this.settings.model, language),
        this.settings.apiKey,
        this.settings.connectTimeoutMs ?? 5000,
      );
      list.push(connection);
    }
    this.connections.set(key, list);
    return connection;
  }
}

/** The multi-context endpoint at the API's base URL (http → ws, https → wss). */
export function multiStreamUrl(baseUrl: string, voice: string, model: string, language: string): string {
  const url = new URL(
    `v1/text-to-speech/${encodeURIComponent(voice)}/multi-stream-input`,
    `${baseUrl.replace(/\/$/, '')}/`,
  );
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  url.searchParams.set('model_id', model);
  // ulaw_8000 is the telephony format itself: no transcoding.
  url.searchParams.set('output_format', 'ulaw_8000');
  url.searchParams.set('language_code', language);
  url.searchParams.set('inactivity_timeout', String(INACTIVITY_TIMEOUT_S));
  return url.toString();
}
