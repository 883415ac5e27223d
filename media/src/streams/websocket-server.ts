/**
 * Media Streams WebSocket endpoint: one MediaSession per provider connection, on the service's
 * existing HTTP server (same port as /healthz, so the load balancer needs a single target).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { LogFn, MediaSession, SessionResult } from './media-session.ts';

export const HANGUP_MARK = 'hangup';

export interface MediaStreamsOptions {
  log?: LogFn;
  /** Extra wait after the expected end of playback if the provider never echoes the hang-up mark. */
  hangUpGraceMs?: number;
  /** Upper bound on waiting for playback before closing a hung-up call. */
  maxHangUpWaitMs?: number;
}

export interface MediaStreamsHandle {
  readonly activeConnections: number;
  /** Refuses new streams with 503 and leaves open ones running (graceful drain). */
  stopAccepting(): void;
  /** Stops accepting upgrades and terminates open streams (their sessions finish as 'closed'). */
  close(): Promise<void>;
}

export function attachMediaStreams(
  server: Server,
  path: string,
  createSession: (send: (message: object) => void) => MediaSession,
  onFinished: (result: SessionResult) => Promise<void>,
  options: MediaStreamsOptions = {},
): MediaStreamsHandle {
  const log: LogFn = options.log ?? (() => {});
  const hangUpGraceMs = options.hangUpGraceMs ?? 2_000;
  const maxHangUpWaitMs = options.maxHangUpWaitMs ?? 30_000;
  // noServer: the HTTP server stays ours; we only claim upgrades on `path`.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) {
      // Leave other paths to other upgrade listeners; if there are none, refuse instead of hanging.
      if (server.listenerCount('upgrade') === 1) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  wss.on('connection', (ws: WebSocket) => {
    const send = (message: object): void => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
    };
    let session: MediaSession;
    try {
      session = createSession(send);
    } catch (error) {
      log('error', 'failed to create media session', { error: String(error) });
      ws.close(1011, 'session setup failed');
      return;
    }

    // `finished` resolves exactly once (stop or close, whichever first), so onFinished runs once.
    void session.finished.then(
      (result) => onFinished(result).catch((error: unknown) => log('error', 'onFinished failed', { error: String(error), runRef: result.runRef })),
    );

    let hangUpTimer: NodeJS.Timeout | undefined;
    let hangingUp = false;
    const hangUpNow = (why: string): void => {
      clearTimeout(hangUpTimer);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) {
        log('info', 'closing media stream after hang-up', { why, runRef: session.runRef });
        ws.close(1000, 'agent hung up');
      }
    };
    void session.hangUpRequested.then((info) => {
      // The closing words are already queued at the provider; the mark echo tells us they played.
      hangingUp = true;
      send({ event: 'mark', streamSid: session.streamSid, mark: { name: HANGUP_MARK } });
      const wait = Math.min(maxHangUpWaitMs, info.playbackRemainingMs + hangUpGraceMs);
      hangUpTimer = setTimeout(() => hangUpNow('playback timeout'), wait);
    });

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        log('warn', 'ignoring binary media stream frame');
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(rawToString(data));
      } catch {
        log('warn', 'ignoring non-JSON media stream frame');
        return;
      }
      // Not awaited: the session records media synchronously and queues turns internally.
      void session.handle(message);
      if (hangingUp && isHangUpMark(message)) hangUpNow('mark played');
    });
    ws.on('close', () => {
      clearTimeout(hangUpTimer);
      void session.finish('closed');
    });
    ws.on('error', (error) => log('warn', 'media stream socket error', { error: String(error) }));
  });

  return {
    get activeConnections() {
      return wss.clients.size;
    },
    stopAccepting: () => {
      server.off('upgrade', onUpgrade);
      server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade);
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

function isHangUpMark(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { event, mark } = message as { event?: unknown; mark?: { name?: unknown } };
  return event === 'mark' && mark?.name === HANGUP_MARK;
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
