import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { parseFrame } from '../../shared/services/test-conversation.ts';
import type { MediaStreamWire } from './callee-stream.ts';

/**
 * Handsets: a phone the local stack's tests hold themselves, at a number of the callee directory.
 * An agent test's simulated caller (shared/services/test-voice-conversation.ts) picks up the
 * handset of its number (a WebSocket to `/_simulator/handsets/<number>`) before its call is
 * placed; when the platform's call to that number is answered, the carrier connects the handset to
 * the call's media stream: what the handset sends is the caller's side of the line (`media`
 * frames, `dtmf` keys, `mark` echoes once the agent's audio before them has played, `stop` to hang
 * up), re-framed by the wire as the provider sends it (sequence numbers, its stream id, the line's
 * chunks and timestamps); what the platform sends on the stream (`media`, `mark`, `clear`) reaches
 * the handset as sent. The handset is the phone; the carrier's REST API, callbacks, TwiML and
 * stream framing are the ones every call goes through.
 */
export const HANDSETS_PATH = '/_simulator/handsets/';

export class Handsets {
  private readonly waiting = new Map<string, WebSocket>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  /** Takes a WebSocket upgrade to HANDSETS_PATH<number>; false for any other path. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(HANDSETS_PATH)) return false;
    const number = decodeURIComponent(url.pathname.slice(HANDSETS_PATH.length));
    if (!/^\+[1-9]\d{6,14}$/.test(number) || this.waiting.has(number)) {
      socket.end('HTTP/1.1 409 Conflict\r\n\r\n');
      return true;
    }
    this.wss.handleUpgrade(request, socket, head, (handset) => {
      this.waiting.set(number, handset);
      handset.once('close', () => {
        if (this.waiting.get(number) === handset) this.waiting.delete(number);
      });
    });
    return true;
  }

  /** The handset picked up at `number`, once (a call to it is answered): undefined when there is none. */
  take(number: string): WebSocket | undefined {
    const handset = this.waiting.get(number);
    this.waiting.delete(number);
    return handset?.readyState === WebSocket.OPEN ? handset : undefined;
  }

  /** Hangs up every handset still waiting (the carrier stops). */
  stop(): void {
    for (const handset of this.waiting.values()) handset.terminate();
    this.waiting.clear();
    this.wss.close();
  }
}

const FRAME_MS = 20;

/**
 * An answered call's media stream with a handset on the callee's side: the stream opened to the
 * platform with the wire's `connected` and `start`, then frames both ways until the handset hangs
 * up (`stop`, or its socket closed), `hangUp` aborts (the platform hung up through the API), or
 * the platform closes the stream; the other side is closed then. Resolves as talkAsCallee does.
 */
export async function connectHandset(options: {
  url: string;
  wire: MediaStreamWire;
  handset: WebSocket;
  hangUp: AbortSignal;
  /** Open sockets, so that a stopping simulator can terminate them. */
  sockets: Set<WebSocket>;
  /** Told after each frame how much audio (ms) has gone out on the stream (LineAudio). */
  audioSent?: (ms: number) => void;
}): Promise<'stream-closed' | 'ended'> {
  const { wire, handset } = options;
  const stream = new WebSocket(options.url);
  options.sockets.add(stream);
  options.sockets.add(handset);
  const toPlatform = (message: object) => stream.readyState === WebSocket.OPEN && stream.send(JSON.stringify(message));
  let closedBy: 'platform' | 'callee' | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    const streamClosed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    const handsetClosed = new Promise<void>((resolve) =>
      handset.readyState === WebSocket.OPEN ? handset.once('close', () => resolve()) : resolve(),
    );
    toPlatform(wire.connected());
    toPlatform(wire.start());
    let sequence = 2;
    let chunk = 0;
    stream.on('message', (data) => {
      // The platform's frames reach the phone as they are.
      if (handset.readyState === WebSocket.OPEN) handset.send(String(data));
    });
    handset.on('message', (data) => {
      const frame = parseFrame(data);
      if (frame?.event === 'media') {
        const payload = (frame.media as { payload?: unknown } | undefined)?.payload;
        if (typeof payload !== 'string') return;
        chunk += 1;
        toPlatform(wire.media({ sequence: sequence++, chunk, timestampMs: (chunk - 1) * FRAME_MS, payload }));
        options.audioSent?.(chunk * FRAME_MS);
      } else if (frame?.event === 'dtmf') {
        const digit = (frame.dtmf as { digit?: unknown } | undefined)?.digit;
        if (typeof digit === 'string') toPlatform(wire.dtmf(digit, sequence++));
      } else if (frame?.event === 'mark') toPlatform(wire.mark((frame.mark as { name?: unknown } | undefined)?.name));
      else if (frame?.event === 'stop') handset.close(1000, 'hung up');
    });
    const hungUp = new Promise<void>((resolve) => {
      if (options.hangUp.aborted) resolve();
      else options.hangUp.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([
      streamClosed.then(() => (closedBy ??= 'platform')),
      handsetClosed.then(() => (closedBy ??= 'callee')),
      hungUp.then(() => (closedBy ??= 'platform')),
    ]);
    if (stream.readyState === WebSocket.OPEN) {
      toPlatform(wire.stop(sequence));
      stream.close();
      await streamClosed;
    }
    if (handset.readyState === WebSocket.OPEN) handset.close(1000, 'call ended');
    return closedBy === 'platform' ? 'stream-closed' : 'ended';
  } finally {
    options.sockets.delete(stream);
    options.sockets.delete(handset);
    if (stream.readyState !== WebSocket.CLOSED) stream.terminate();
    if (handset.readyState !== WebSocket.CLOSED && handset.readyState !== WebSocket.CLOSING) handset.terminate();
  }
}
