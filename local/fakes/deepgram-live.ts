import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, WebSocketServer } from 'ws';
import { connectionDelay } from './connection-delay.ts';
import { fluxStream } from './deepgram-flux.ts';
import { FRAME_SAMPLES, isVoiceActivity } from '../../media/src/audio/tones.ts';
import { SpeechFrames } from './speech-frames.ts';

export interface FakeDeepgramOptions {
  apiKey: string;
  /** Fixed delay before each final result, and each Flux `EndOfTurn` (latency bench); default 0. */
  finalDelayMs?: number;
  /** A stream's connection setup (TLS and the upgrade across the internet) before it opens (latency bench); default 0. */
  connectDelayMs?: number;
  /** Closes a stream abruptly (1011) once it has received this much audio (fault tests). */
  dropAfterAudioMs?: number;
  /** How many streams drop at dropAfterAudioMs (the first ones); default every stream. */
  drops?: number;
  /** Closes a stream that got neither audio nor a message for this long (Deepgram: 10 s, NET-0001). */
  idleTimeoutMs?: number;
  /** A long utterance: a final result (`is_final` without `speech_final`) after every n words. */
  finalEveryWords?: number;
  /** At the end of an utterance, the words come `is_final` and then an empty `speech_final` result. */
  emptySpeechFinal?: boolean;
  /** Endpointing misses every pause: no `speech_final`; `UtteranceEnd` alone ends a turn. */
  noSpeechFinal?: boolean;
  /**
   * Words it is not sure of: an utterance shorter than this many characters shows in interim
   * results, then its final result comes empty (a cough heard as "uh", then taken back).
   */
  retractShorterThan?: number;
}

export interface FakeDeepgram {
  /** Base URL for the SDK (`DEEPGRAM_API_URL`). */
  url: string;
  /** Query strings of the streams opened so far (tests check the parameters sent). */
  readonly connections: URLSearchParams[];
  /** KeepAlive messages received, all streams together. */
  readonly keepAlives: () => number;
  /** Streams open now (tests check none is left behind). */
  readonly openStreams: () => number;
  /** Binary (audio) messages received and their bytes, all streams together. */
  readonly audioReceived: () => { messages: number; bytes: number };
  stop: () => Promise<void>;
}

const FRAME_SECONDS = FRAME_SAMPLES / 8000;

/**
 * A local Deepgram live transcription endpoint (`wss://api.deepgram.com/v1/listen`, and Flux's
 * `/v2/listen` in deepgram-flux.ts): the same
 * handshake (`Authorization: Token <key>`, query parameters), binary mu-law audio in, and the
 * same JSON messages out: `Results` (interim at each word, final with `speech_final` after
 * `endpointing` ms of silence), `SpeechStarted` (with `vad_events`, on any sound after a
 * pause, noise too), `UtteranceEnd` (after `utterance_end_ms`), on `CloseStream` the final result
 * of the words not yet ended by a pause and `Metadata`,
 * `KeepAlive` accepted, and the 10 s idle close. It "hears" the synthetic speech of
 * media/src/audio/tones.ts, so a caller's text comes back exactly. Time is the audio's own time,
 * so results are deterministic however fast the audio arrives. Options make it behave as
 * Deepgram does on harder audio: finals split inside an utterance, an empty `speech_final`, missed
 * endpoints, dropped streams.
 */
export async function startFakeDeepgram(options: FakeDeepgramOptions): Promise<FakeDeepgram> {
  const connections: URLSearchParams[] = [];
  let keepAlives = 0;
  const audioReceived = { messages: 0, bytes: 0 };
  let streamsOpened = 0;
  let openStreams = 0;
  const connecting = connectionDelay(options.connectDelayMs);
  const server = createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const flux = url.pathname === '/v2/listen';
    if (url.pathname !== '/v1/listen' && !flux) return void socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
    if (request.headers.authorization !== `Token ${options.apiKey}`)
      return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    if (url.searchParams.get('encoding') !== 'mulaw' || url.searchParams.get('sample_rate') !== '8000')
      return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    connections.push(url.searchParams);
    void connecting(request).then(() =>
      wss.handleUpgrade(request, socket, head, (ws) => {
        if (!flux) return transcribe(ws, url.searchParams);
        openStreams += 1;
        ws.on('close', () => (openStreams -= 1));
        fluxStream(ws, url.searchParams, { endOfTurnDelayMs: options.finalDelayMs });
      }),
    );
  });

  function transcribe(ws: WebSocket, query: URLSearchParams): void {
    const requestId = randomUUID();
    const drops = (options.drops ?? Number.POSITIVE_INFINITY) > streamsOpened++;
    const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
    let idle: NodeJS.Timeout | undefined;
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        if (ws.readyState !== WebSocket.OPEN) return;
        ws.close(
          1011,
          'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001',
        );
      }, idleTimeoutMs);
      idle.unref();
    };
    resetIdle();
    openStreams += 1;
    ws.on('close', () => {
      openStreams -= 1;
      clearTimeout(idle);
    });
    const endpointingMs = Number(query.get('endpointing') ?? 10);
    const utteranceEndMs = query.has('utterance_end_ms') ? Number(query.get('utterance_end_ms')) : null;
    const interim = query.get('interim_results') === 'true';
    const vadEvents = query.get('vad_events') === 'true';
    /** Audio received so far, in samples (8 kHz). */
    let samplesSeen = 0;
    let text = '';
    /** Words of the utterance already sent in a final result (`finalEveryWords`). */
    let finalWords = 0;
    let voiceActive = false;
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
    const results = (isFinal: boolean, speechFinal: boolean) =>
      resultsOf(isFinal && text.trim().length < (options.retractShorterThan ?? 0) ? '' : text, isFinal, speechFinal);
    const resultsOf = (heard: string, isFinal: boolean, speechFinal: boolean) => ({
      type: 'Results',
      channel_index: [0, 1],
      duration: round(lastVoiceEnd - speechStart),
      start: round(speechStart),
      is_final: isFinal,
      speech_final: speechFinal,
      from_finalize: false,
      channel: { alternatives: [{ transcript: heard.trim(), confidence: 0.99, words: words(heard, speechStart) }] },
      metadata: {
        request_id: requestId,
        model_info: { name: 'general-nova-3', version: 'fake', arch: 'nova-3' },
        model_uuid: randomUUID(),
      },
    });

    /** A frame of audio (`samples` of it: a fragment cut short by a glitch is less), and the symbol heard in it. */
    const onFrame = (frame: Int16Array, char: string | null, samples: number): void => {
      const at = samplesSeen / 8000;
      samplesSeen += samples;
      if (isVoiceActivity(frame)) {
        // Deepgram's voice activity detection: any sound after a pause, speech or not.
        if (!voiceActive && vadEvents) send({ type: 'SpeechStarted', channel: [0, 1], timestamp: round(at) });
        voiceActive = true;
        silentFrames = 0;
      }
      if (char !== null) {
        if (!text) speechStart = at;
        text += char;
        lastVoiceEnd = at + samples / 8000;
        awaitingUtteranceEnd = false;
        if (char === ' ' && text.trim()) {
          const words = text.trim().split(/\s+/).length;
          if (options.finalEveryWords && words - finalWords >= options.finalEveryWords) {
            send(results(true, false));
            finalWords = words;
            text = '';
          } else if (interim) send(results(false, false));
        }
        return;
      }
      if (isVoiceActivity(frame)) return; // noise: no words, and no pause either
      silentFrames += 1;
      const silentMs = silentFrames * FRAME_SECONDS * 1000;
      if (silentMs >= endpointingMs) voiceActive = false;
      if ((text.trim() || finalWords) && silentMs >= endpointingMs && !options.noSpeechFinal) {
        if (options.emptySpeechFinal && text.trim()) {
          send(results(true, false), options.finalDelayMs ?? 0);
          text = '';
        }
        send(results(true, true), options.finalDelayMs ?? 0);
        text = '';
        finalWords = 0;
        awaitingUtteranceEnd = utteranceEndMs !== null;
      } else if (text.trim() && silentMs >= endpointingMs && options.noSpeechFinal) {
        send(results(true, false), options.finalDelayMs ?? 0);
        text = '';
        finalWords = 0;
        awaitingUtteranceEnd = utteranceEndMs !== null;
      }
      if (awaitingUtteranceEnd && utteranceEndMs !== null && silentMs >= utteranceEndMs) {
        send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: round(lastVoiceEnd) });
        awaitingUtteranceEnd = false;
      }
    };

    // Words are heard wherever the chunks of audio begin, and through a browser's glitches (speech-frames.ts).
    const frames = new SpeechFrames({
      frame: (frame, char, samples) => {
        onFrame(frame, char, samples);
        if (drops && options.dropAfterAudioMs !== undefined && samplesSeen / 8 >= options.dropAfterAudioMs) {
          ws.close(1011, 'internal error');
          return false;
        }
      },
      skipped: (samples) => void (samplesSeen += samples),
    });

    ws.on('message', (data, isBinary) => {
      resetIdle();
      if (!isBinary) {
        const message = JSON.parse(String(data)) as { type?: string };
        if (message.type === 'KeepAlive') keepAlives += 1;
        if (message.type === 'CloseStream') {
          // As Deepgram does: the audio received is transcribed to the end (words not yet
          // followed by a pause come final), then the metadata, then the stream closes.
          frames.end();
          if (text.trim()) send(results(true, false));
          text = '';
          send({
            type: 'Metadata',
            transaction_key: 'deprecated',
            request_id: requestId,
            sha256: '',
            created: new Date().toISOString(),
            duration: round(samplesSeen / 8000),
            channels: 1,
          });
          void outbox.then(() => ws.close(1000));
        }
        return;
      }
      audioReceived.messages += 1;
      audioReceived.bytes += (data as Buffer).length;
      frames.append(data as Buffer);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    keepAlives: () => keepAlives,
    openStreams: () => openStreams,
    audioReceived: () => ({ ...audioReceived }),
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
