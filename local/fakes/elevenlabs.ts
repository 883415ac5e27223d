import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectionDelay } from './connection-delay.ts';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';

export interface FakeElevenLabsOptions {
  apiKey: string;
  /** Fixed delay before the first audio byte (latency bench); default 0. */
  firstByteDelayMs?: number;
  /** A new connection's setup (TLS across the internet) before its first answer (latency bench); default 0. */
  connectDelayMs?: number;
  /** Answers 500 from the n-th request (1-based) on (fault tests). */
  failFromRequest?: number;
}

export interface FakeElevenLabs {
  /** Base URL for the SDK (`ELEVENLABS_API_URL`). */
  url: string;
  /** Texts asked for so far. */
  readonly texts: string[];
  /** Multi-context WebSocket connections opened so far. */
  readonly connections: number;
  /**
   * Closes each open multi-context connection at its next message, as when ElevenLabs closed one
   * idle past its timeout while the call's next sentence was on its way (tests).
   */
  closeConnections(code: number, reason: string): void;
  stop: () => Promise<void>;
}

const CHUNK_BYTES = 1600; // 200 ms of 8 kHz mu-law per chunk, as a stream arrives

/**
 * A local ElevenLabs streaming text-to-speech endpoint: `POST /v1/text-to-speech/{voice_id}/stream`
 * with `xi-api-key`, `output_format=ulaw_8000` in the query and `{text, model_id}` in the body;
 * answers the synthetic speech of media/src/audio/tones.ts as raw 8 kHz mu-law, chunked, or
 * ElevenLabs' `{detail: {status, message}}` error body. Also the multi-context WebSocket,
 * `/v1/text-to-speech/{voice_id}/multi-stream-input` (multiContext below).
 */
export async function startFakeElevenLabs(options: FakeElevenLabsOptions): Promise<FakeElevenLabs> {
  const texts: string[] = [];
  let connections = 0;
  const error = (response: ServerResponse, status: number, code: string, message: string): void => {
    response
      .writeHead(status, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ detail: { status: code, message } }));
  };

  const connecting = connectionDelay(options.connectDelayMs);
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await connecting(request);
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method !== 'POST' || !/^\/v1\/text-to-speech\/[^/]+\/stream$/.test(url.pathname))
      return error(response, 404, 'not_found', 'Not found');
    if (request.headers['xi-api-key'] !== options.apiKey)
      return error(response, 401, 'invalid_api_key', 'Invalid API key');
    if (url.searchParams.get('output_format') !== 'ulaw_8000')
      return error(response, 422, 'invalid_output_format', 'This fake serves output_format=ulaw_8000 only');
    const chunks: Buffer[] = [];
    for await (const piece of request) chunks.push(piece as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { text?: string };
    texts.push(String(body.text ?? ''));
    if (options.failFromRequest !== undefined && texts.length >= options.failFromRequest)
      return error(response, 500, 'internal_error', 'Internal server error');
    const audio = encodeMulaw(synthesizeSpeech(String(body.text ?? '')));
    response.writeHead(200, { 'Content-Type': 'audio/basic', 'Transfer-Encoding': 'chunked' });
    if (options.firstByteDelayMs) await sleep(options.firstByteDelayMs);
    for (let offset = 0; offset < audio.length; offset += CHUNK_BYTES)
      response.write(audio.subarray(offset, offset + CHUNK_BYTES));
    response.end();
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((failure: unknown) => {
      if (!response.headersSent) error(response, 500, 'internal_error', String(failure));
    });
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const closing = new WeakMap<WebSocket, { code: number; reason: string }>();
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    void connecting(request).then(() => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
      if (!/^\/v1\/text-to-speech\/[^/]+\/multi-stream-input$/.test(url.pathname)) return refuse('404 Not Found');
      if (request.headers['xi-api-key'] !== options.apiKey) return refuse('401 Unauthorized');
      if (url.searchParams.get('output_format') !== 'ulaw_8000') return refuse('422 Unprocessable Entity');
      sockets.handleUpgrade(request, socket, head, (ws) => {
        connections++;
        multiContext(ws);
      });
    });
  });

  /**
   * The multi-context protocol: `{text, context_id}` opens a context (or adds to its text),
   * `flush: true` generates its text so far, `{context_id, close_context: true}` ends it (after a
   * generation under way), `{close_socket: true}` ends all; audio comes as `{audio (base64),
   * contextId}` in chunks, and `{isFinal: true, contextId}` once a closed context has no more.
   */
  function multiContext(ws: WebSocket): void {
    const contexts = new Map<string, { text: string; generating: Promise<void>; closed: boolean }>();
    const send = (message: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const generate = async (id: string, text: string) => {
      texts.push(text);
      if (options.failFromRequest !== undefined && texts.length >= options.failFromRequest)
        return void ws.close(1011, 'Internal server error');
      const audio = encodeMulaw(synthesizeSpeech(text));
      if (options.firstByteDelayMs) await sleep(options.firstByteDelayMs);
      for (let offset = 0; offset < audio.length; offset += CHUNK_BYTES) {
        if (contexts.get(id)?.closed === undefined) return;
        send({ audio: audio.subarray(offset, offset + CHUNK_BYTES).toString('base64'), contextId: id });
      }
    };
    ws.on('message', (data) => {
      const close = closing.get(ws);
      if (close) return ws.close(close.code, close.reason);
      let message: {
        text?: unknown;
        context_id?: unknown;
        flush?: unknown;
        close_context?: unknown;
        close_socket?: unknown;
      };
      try {
        message = JSON.parse(data.toString()) as typeof message;
      } catch {
        return ws.close(1008, 'Invalid message');
      }
      if (message.close_socket === true) {
        return void Promise.all([...contexts.values()].map((context) => context.generating)).then(() => ws.close(1000));
      }
      const id = typeof message.context_id === 'string' ? message.context_id : 'default';
      let context = contexts.get(id);
      if (typeof message.text === 'string') {
        if (!context) contexts.set(id, (context = { text: '', generating: Promise.resolve(), closed: false }));
        context.text += message.text;
      }
      if (!context) return;
      if (message.flush === true && context.text.trim()) {
        const text = context.text.trim();
        context.text = '';
        context.generating = context.generating.then(() => generate(id, text));
      }
      if (message.close_context === true && !context.closed) {
        context.closed = true;
        void context.generating.then(() => {
          if (contexts.delete(id)) send({ isFinal: true, contextId: id });
        });
      }
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    texts,
    get connections() {
      return connections;
    },
    closeConnections: (code, reason) => {
      for (const ws of sockets.clients) closing.set(ws, { code, reason });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets.clients) ws.terminate();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
