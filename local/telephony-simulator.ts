import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { encodeMulaw } from '../media/src/audio/mulaw.ts';
import { FRAME_SAMPLES, frames, synthesizeSpeech } from '../media/src/audio/tones.ts';
import { DEFAULT_CALLER_SCRIPT } from '../media/src/streams/caller-script.ts';
import { signCallback, type ProviderCallStatus } from '../shared/telephony/provider.ts';

const FRAME_MS = 20;
/** The callee answers this long after the agent stops talking. */
const REPLY_PAUSE_MS = 300;

export interface TelephonySimulatorOptions {
  apiKey: string;
  /** Signs status callbacks, as a provider does with its account secret. */
  callbackSecret: string;
  /** How long an answered call lasts before the callee hangs up. */
  callSeconds: number;
  /** Ringing before an outcome. */
  ringMs?: number;
}

export interface TelephonySimulator {
  apiUrl: string;
  /** Resolves when every call placed so far has ended and reported its status (tests). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

interface CallRequest {
  to: string;
  from: string;
  stream_url: string;
  status_callback_url: string;
  custom_parameters: { run_ref: string };
}

/**
 * Outcome of a dialed number, decided by its last digit: 0-6 answered, 7 busy, 8 no answer,
 * 9 voicemail.
 */
export function simulatedOutcome(number: string): 'answered' | 'busy' | 'no-answer' | 'voicemail' {
  const digit = Number(number.at(-1));
  if (digit === 7) return 'busy';
  if (digit === 8) return 'no-answer';
  if (digit === 9) return 'voicemail';
  return 'answered';
}

/**
 * A local telephony provider: the HTTP API of shared/telephony/provider.ts, signed status
 * callbacks, and for answered calls a callee that streams its voice over Media Streams to the
 * media service (real-time 20 ms mu-law frames) and answers each agent turn with the next line of
 * a fixed script, then hangs up after `callSeconds` (or when the agent does).
 */
export async function startTelephonySimulator(options: TelephonySimulatorOptions): Promise<TelephonySimulator> {
  const ringMs = options.ringMs ?? 300;
  const callsByKey = new Map<string, string>();
  const activeCalls = new Set<Promise<void>>();
  const sockets = new Set<WebSocket>();
  let stopping = false;

  async function report(request: CallRequest, callId: string, status: ProviderCallStatus): Promise<void> {
    const body = JSON.stringify({ call_id: callId, status, custom_parameters: request.custom_parameters, timestamp: new Date().toISOString() });
    try {
      const response = await fetch(request.status_callback_url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Telephony-Signature': signCallback(options.callbackSecret, request.status_callback_url, body) },
        body,
      });
      if (!response.ok) console.error(`Telephony simulator: status callback answered ${response.status}: ${await response.text()}`);
    } catch (error) {
      if (!stopping) console.error('Telephony simulator: status callback failed', error);
    }
  }

  /** The callee's side of an answered call. */
  async function converse(request: CallRequest, callId: string): Promise<void> {
    const socket = new WebSocket(request.stream_url);
    sockets.add(socket);
    const streamSid = `MZ${randomUUID().replace(/-/g, '')}`;
    const send = (message: object) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const startedAt = Date.now();
    let agentSpeechEndsAt = 0;
    let agentSpokeSinceReply = false;
    let scriptLine = 0;
    let pending: Int16Array[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event?: string; media?: { payload?: string }; mark?: { name?: string } };
      if (message.event === 'mark') {
        // Like a provider: a mark is echoed once the audio sent before it has played.
        const echo = () => send({ event: 'mark', streamSid, mark: message.mark });
        setTimeout(echo, Math.max(0, agentSpeechEndsAt - Date.now()));
        return;
      }
      if (message.event !== 'media' || !message.media?.payload) return;
      // Agent audio arrives faster than real time; it "plays" from when the previous audio ends.
      const durationMs = (Buffer.from(message.media.payload, 'base64').length / FRAME_SAMPLES) * FRAME_MS;
      agentSpeechEndsAt = Math.max(agentSpeechEndsAt, Date.now()) + durationMs;
      agentSpokeSinceReply = true;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    send({
      event: 'start',
      sequenceNumber: '1',
      streamSid,
      start: {
        streamSid,
        callSid: callId,
        tracks: ['inbound'],
        customParameters: request.custom_parameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    let sequence = 2;
    let chunk = 0;
    const silence = new Int16Array(FRAME_SAMPLES);
    while (socket.readyState === WebSocket.OPEN && Date.now() - startedAt < options.callSeconds * 1000) {
      if (!pending.length && agentSpokeSinceReply && Date.now() > agentSpeechEndsAt + REPLY_PAUSE_MS) {
        const line = DEFAULT_CALLER_SCRIPT[Math.min(scriptLine, DEFAULT_CALLER_SCRIPT.length - 1)]!;
        scriptLine += 1;
        agentSpokeSinceReply = false;
        pending = frames(synthesizeSpeech(line));
      }
      const frame = pending.shift() ?? silence;
      chunk += 1;
      send({
        event: 'media',
        sequenceNumber: String(sequence++),
        streamSid,
        media: { track: 'inbound', chunk: String(chunk), timestamp: String(Date.now() - startedAt), payload: encodeMulaw(frame).toString('base64') },
      });
      await sleep(FRAME_MS);
    }
    send({ event: 'stop', sequenceNumber: String(sequence), streamSid, stop: { callSid: callId } });
    socket.close();
    await closed;
    sockets.delete(socket);
  }

  async function runCall(request: CallRequest, callId: string): Promise<void> {
    await sleep(ringMs);
    const outcome = simulatedOutcome(request.to);
    if (outcome !== 'answered') return report(request, callId, outcome);
    await report(request, callId, 'answered');
    try {
      await converse(request, callId);
      await report(request, callId, 'completed');
    } catch (error) {
      if (!stopping) console.error('Telephony simulator: media stream failed', error);
      await report(request, callId, 'failed');
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || request.url !== '/calls') return reply(404, { error: 'not found' });
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) return reply(401, { error: 'bad credentials' });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CallRequest;
    const key = String(request.headers['idempotency-key'] ?? randomUUID());
    const existing = callsByKey.get(key);
    if (existing) return reply(201, { call_id: existing });
    const callId = `CA${randomUUID().replace(/-/g, '')}`;
    callsByKey.set(key, callId);
    const running = runCall(call, callId);
    activeCalls.add(running);
    void running.finally(() => activeCalls.delete(running));
    reply(201, { call_id: callId });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('Telephony simulator:', error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    idle: async () => {
      while (activeCalls.size) await Promise.allSettled([...activeCalls]);
    },
    stop: async () => {
      stopping = true;
      for (const socket of sockets) socket.terminate();
      await Promise.allSettled([...activeCalls]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
