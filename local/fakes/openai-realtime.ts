import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { connectionDelay } from './connection-delay.ts';
import { converse } from './openai-realtime-session.ts';
import type { ResponseUsage } from './openai-realtime-response.ts';
import { selfSignedCertificate } from './self-signed-certificate.ts';

export interface FakeRealtimeOptions {
  apiKey: string;
  /** Fixed delay from a response's creation to its first audio (latency bench); default 0. */
  firstAudioDelayMs?: number;
  /** Wall time between a response's audio deltas (200 ms of audio each): an answer still streaming when the caller cuts in; default none. */
  audioDeltaIntervalMs?: number;
  /** A new connection's setup (TLS across the internet) before the session opens (latency bench); default 0. */
  connectDelayMs?: number;
  /** Fixed delay from a turn's commit to its transcription (latency bench); default 0. */
  transcriptionDelayMs?: number;
  /** The n-th response (1-based) and later ones fail with `rate_limit_exceeded` (fault tests). */
  rateLimitFromResponse?: number;
}

export interface FakeRealtime {
  /** Base URL for the `openai` client (`REALTIME_API_URL`): https, ends in /v1 (the SDK opens wss://…/v1/realtime). */
  url: string;
  /** The self-signed certificate the fake serves (PEM): what a client must trust to reach it. */
  ca: string;
  /** Every client event received, all sessions together (tests check what the client sent). */
  readonly received: { type: string; [key: string]: unknown }[];
  /** The `model` query of each session opened. */
  readonly sessions: string[];
  /** Every response as its `response.done` gave it, all sessions together: what the API bills. */
  readonly responses: { id: string; status: string; conversation_id: string | null; usage?: ResponseUsage }[];
  stop: () => Promise<void>;
}

/**
 * A local OpenAI Realtime API (GA): `wss://…/v1/realtime?model=…` with Bearer authentication over
 * TLS (a self-signed certificate, ./self-signed-certificate.ts), the same JSON events both ways as
 * the `openai` package's types name them. This is its server: the upgrade, checked as the API
 * checks it (path, key, model), after the connection's setup delay. A session's protocol:
 * ./openai-realtime-session.ts; its turn detection: ./openai-realtime-turns.ts; its responses:
 * ./openai-realtime-response.ts.
 */
export async function startFakeRealtime(options: FakeRealtimeOptions): Promise<FakeRealtime> {
  const received: FakeRealtime['received'] = [];
  const sessions: string[] = [];
  const responses: FakeRealtime['responses'] = [];
  let counted = 0;
  const shared = {
    options,
    received,
    countResponse: () => (counted += 1),
    done: (response: FakeRealtime['responses'][number]) => void responses.push(response),
  };
  const { key, cert } = selfSignedCertificate();
  const connecting = connectionDelay(options.connectDelayMs);
  const server = createServer({ key, cert }, (_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    if (url.pathname !== '/v1/realtime') return void socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
    if (request.headers.authorization !== `Bearer ${options.apiKey}`)
      return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    const model = url.searchParams.get('model');
    if (!model) return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    sessions.push(model);
    void connecting(request).then(() => wss.handleUpgrade(request, socket, head, (ws) => converse(ws, model, shared)));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/v1`,
    ca: cert,
    received,
    sessions,
    responses,
    stop: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
