import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  stop: () => Promise<void>;
}

const CHUNK_BYTES = 1600; // 200 ms of 8 kHz mu-law per chunk, as a stream arrives

/**
 * A local ElevenLabs streaming text-to-speech endpoint: `POST /v1/text-to-speech/{voice_id}/stream`
 * with `xi-api-key`, `output_format=ulaw_8000` in the query and `{text, model_id}` in the body;
 * answers the synthetic speech of media/src/audio/tones.ts as raw 8 kHz mu-law, chunked, or
 * ElevenLabs' `{detail: {status, message}}` error body.
 */
export async function startFakeElevenLabs(options: FakeElevenLabsOptions): Promise<FakeElevenLabs> {
  const texts: string[] = [];
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    texts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
