import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, WebSocketServer } from 'ws';
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { decodeSpeechFrame, FRAME_SAMPLES } from '../../media/src/audio/tones.ts';

export interface FakeDeepgramOptions {
  apiKey: string;
  /** Fixed delay before each final result (latency bench); default 0. */
  finalDelayMs?: number;
  /** Closes a stream abruptly (1011) once it has received this much audio (fault tests). */
  dropAfterAudioMs?: number;
}

export interface FakeDeepgram {
  /** Base URL for the SDK (`DEEPGRAM_API_URL`). */
  url: string;
  /** Query strings of the streams opened so far (tests check the parameters sent). */
  readonly connections: URLSearchParams[];
  stop: () => Promise<void>;
}

const FRAME_SECONDS = FRAME_SAMPLES / 8000;

/**
 * A local Deepgram live transcription endpoint (`wss://api.deepgram.com/v1/listen`): the same
 * handshake (`Authorization: Token <key>`, query parameters), binary mu-law audio in, and the
 * same JSON messages out: `Results` (interim at each word, final with `speech_final` after
 * `endpointing` ms of silence), `SpeechStarted` (with `vad_events`), `UtteranceEnd` (after
 * `utterance_end_ms`), `Metadata` on `CloseStream`. It "hears" the synthetic speech of
 * media/src/audio/tones.ts, so a caller's text comes back exactly. Time is the audio's own time,
 * so results are deterministic however fast the audio arrives.
 */
export async function startFakeDeepgram(options: FakeDeepgramOptions): Promise<FakeDeepgram> {
  const connections: URLSearchParams[] = [];
  const server = createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/v1/listen') return void socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
    if (request.headers.authorization !== `Token ${options.apiKey}`)
      return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    if (url.searchParams.get('encoding') !== 'mulaw' || url.searchParams.get('sample_rate') !== '8000')
      return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    connections.push(url.searchParams);
    wss.handleUpgrade(request, socket, head, (ws) => transcribe(ws, url.searchParams));
  });

  function transcribe(ws: WebSocket, query: URLSearchParams): void {
    const requestId = randomUUID();
    const endpointingMs = Number(query.get('endpointing') ?? 10);
    const utteranceEndMs = query.has('utterance_end_ms') ? Number(query.get('utterance_end_ms')) : null;
    const interim = query.get('interim_results') === 'true';
    const vadEvents = query.get('vad_events') === 'true';
    let pending = Buffer.alloc(0);
    let frameIndex = 0;
    let text = '';
    let speechStart = 0;
    let lastVoiceEnd = 0;
    let silentFrames = 0;
    let awaitingUtteranceEnd = false;
    let outbox = Promise.resolve();
    const send = (message: object, delayMs = 0): void => {
      outbox = outbox.then(async () => {
        if (delayMs) await sleep(delayMs);
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
      });
    };
    const results = (isFinal: boolean, speechFinal: boolean) => ({
      type: 'Results',
      channel_index: [0, 1],
      duration: round(lastVoiceEnd - speechStart),
      start: round(speechStart),
      is_final: isFinal,
      speech_final: speechFinal,
      from_finalize: false,
      channel: { alternatives: [{ transcript: text.trim(), confidence: 0.99, words: words(text, speechStart) }] },
      metadata: {
        request_id: requestId,
        model_info: { name: 'general-nova-3', version: 'fake', arch: 'nova-3' },
        model_uuid: randomUUID(),
      },
    });

    const onFrame = (frame: Int16Array): void => {
      const at = frameIndex++ * FRAME_SECONDS;
      const char = decodeSpeechFrame(frame);
      if (char !== null) {
        if (!text) {
          speechStart = at;
          if (vadEvents) send({ type: 'SpeechStarted', channel: [0, 1], timestamp: round(at) });
        }
        text += char;
        lastVoiceEnd = at + FRAME_SECONDS;
        silentFrames = 0;
        awaitingUtteranceEnd = false;
        if (interim && char === ' ' && text.trim()) send(results(false, false));
        return;
      }
      silentFrames += 1;
      const silentMs = silentFrames * FRAME_SECONDS * 1000;
      if (text && silentMs >= endpointingMs) {
        send(results(true, true), options.finalDelayMs ?? 0);
        text = '';
        awaitingUtteranceEnd = utteranceEndMs !== null;
      }
      if (awaitingUtteranceEnd && utteranceEndMs !== null && silentMs >= utteranceEndMs) {
        send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: round(lastVoiceEnd) });
        awaitingUtteranceEnd = false;
      }
    };

    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        const message = JSON.parse(String(data)) as { type?: string };
        if (message.type === 'CloseStream') {
          send({
            type: 'Metadata',
            transaction_key: 'deprecated',
            request_id: requestId,
            sha256: '',
            created: new Date().toISOString(),
            duration: round(frameIndex * FRAME_SECONDS),
            channels: 1,
          });
          void outbox.then(() => ws.close(1000));
        }
        return;
      }
      pending = Buffer.concat([pending, data as Buffer]);
      while (pending.length >= FRAME_SAMPLES) {
        onFrame(decodeMulaw(pending.subarray(0, FRAME_SAMPLES)));
        pending = pending.subarray(FRAME_SAMPLES);
        if (options.dropAfterAudioMs !== undefined && frameIndex * FRAME_SECONDS * 1000 >= options.dropAfterAudioMs) {
          ws.close(1011, 'internal error');
          return;
        }
      }
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Words with their times: one character is one 20 ms frame. */
function words(text: string, start: number) {
  const out: { word: string; punctuated_word: string; start: number; end: number; confidence: number }[] = [];
  for (const match of text.matchAll(/\S+/g)) {
    const punctuated = match[0];
    out.push({
      word: punctuated.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, ''),
      punctuated_word: punctuated,
      start: round(start + match.index * FRAME_SECONDS),
      end: round(start + (match.index + punctuated.length) * FRAME_SECONDS),
      confidence: 0.99,
    });
  }
  return out;
}
