/**
 * Media Streams WebSocket endpoint: one CallPipeline per admitted provider connection, on the
 * service's existing HTTP server (same port as /healthz, so the load balancer needs a single
 * target). A connection is nobody's until its `start` frame carries a stream credential the
 * platform minted for a run waiting for its media (`admit`): until then nothing is created,
 * recorded or written, and a refused connection is closed at once (1008) and logged.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { STREAM_PARAMETERS, type MediaFrameCodec } from '../../../shared/telephony/adapter.ts';
import { codecForStream } from '../../../shared/telephony/media-codecs.ts';
import type { CallPipeline } from '../call/call-pipeline.ts';
import type { LogFn, SessionResult } from '../call/call-types.ts';
import { ChatAllowance, type ChatLimits } from './chat-limits.ts';

export const HANGUP_MARK = 'hangup';

/** A provider frame is a few hundred bytes (20 ms of audio); nothing legitimate comes near this. */
export const MAX_FRAME_BYTES = 16 * 1024;
/** Decoded audio of one media frame: Twilio and Telnyx send 20 ms (160 bytes); 200 ms is the most accepted. */
export const MAX_MEDIA_PAYLOAD_BYTES = 1600;
/** Mu-law at 8 kHz: one byte per sample. */
const BYTES_PER_SECOND = 8000;
/** Frames that may arrive while the credential is being checked. */
const MAX_FRAMES_BEFORE_ADMISSION = 250;

/** An admitted stream carries what its admission found (the run), handed to its session. */
export type AdmissionResult<Admitted = unknown> =
  | { accepted: true; runRef: string; admitted: Admitted }
  /** `status`: the HTTP status the refusal would have (a browser session is closed with 4000 + it). */
  | { accepted: false; reason: string; status?: number };

/** What the provider's `start` frame claims: the run, its stream credential, the provider's call id. */
export interface StreamClaim {
  runRef: string | null;
  streamToken: string | null;
  callSid: string | null;
}

export interface MediaStreamsOptions<Admitted = unknown> {
  /** Checks the claim and takes the run's one stream; only an accepted stream gets a session. */
  admit: (claim: StreamClaim) => Promise<AdmissionResult<Admitted>>;
  /** The longest call: inbound audio beyond it ends the stream, timestamps beyond it are dropped. */
  maxCallSeconds: number;
  log?: LogFn;
  /** A connection that has not sent its `start` frame by then is closed. */
  startTimeoutMs?: number;
  /** Extra wait after the expected end of playback if the provider never echoes the hang-up mark. */
  hangUpGraceMs?: number;
  /** Upper bound on waiting for playback before closing a hung-up call. */
  maxHangUpWaitMs?: number;
  /** The frames' codec whatever the URL asks for (browser sessions speak the canonical frames). */
  codec?: MediaFrameCodec;
  /** Close a refused connection with 4000 + the refusal's HTTP status (4401, 4409…), for browser clients. */
  statusCloseCodes?: boolean;
  /** Chat `message` frames beyond these are refused with an `error` frame and close the session (chat-limits.ts). */
  chatLimits?: ChatLimits;
  /**
   * Ping the peer this often: a chat can be quiet for minutes, and the load balancer closes a
   * connection with no data either way for its idle timeout (60 s). Calls stream audio all along.
   */
  pingEveryMs?: number;
  /**
   * A peer-to-peer media leg for an admitted connection (a `smallwebrtc` session), or none: the
   * client's SDP `offer` frame is answered by it, the session's audio, marks and clears go to it
   * instead of the WebSocket, and what it hears is delivered to the session.
   */
  peerLeg?: (admitted: Admitted, deliver: (frame: Record<string, unknown>) => void, log: LogFn) => PeerLeg | undefined;
  /** Why an offer on a connection without a peer leg is refused (closed with 4501). */
  peerLegUnavailable?: string;
  /**
   * Runs once the agent's last words have played, before the stream is closed: a transfer is
   * carried out at the provider here, while the call is still connected.
   */
  beforeAgentHangUp?: (session: CallPipeline, admitted: Admitted) => Promise<void>;
}

export interface PeerLeg {
  /** The client's SDP offer in, the answer out. */
  answer(offer: string): Promise<string>;
  /** `media`, `mark` and `clear` frames of the session. */
  send(frame: Record<string, unknown>): void;
  close(): void;
}

const PEER_FRAMES = new Set(['media', 'mark', 'clear']);

export interface MediaStreamsHandle {
  readonly activeConnections: number;
  /** Refuses new streams with 503 and leaves open ones running (graceful drain). */
  stopAccepting(): void;
  /** Stops accepting upgrades and terminates open streams (their sessions finish as 'closed'). */
  close(): Promise<void>;
}

const POLICY_VIOLATION = 1008;

export function attachMediaStreams<Admitted>(
  server: Server,
  path: string,
  createSession: (send: (message: object) => void, admitted: Admitted) => CallPipeline,
  onFinished: (result: SessionResult, admitted: Admitted) => Promise<void>,
  options: MediaStreamsOptions<Admitted>,
): MediaStreamsHandle {
  const log: LogFn = options.log ?? (() => {});
  const hangUpGraceMs = options.hangUpGraceMs ?? 2_000;
  const maxHangUpWaitMs = options.maxHangUpWaitMs ?? 30_000;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const maxInboundBytes = options.maxCallSeconds * BYTES_PER_SECOND;
  const maxTimestampMs = options.maxCallSeconds * 1000;
  // noServer: the HTTP server stays ours; we only claim upgrades on `path`. maxPayload: an
  // oversized frame closes the connection (1009) before it is buffered.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  let accepting = true;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) {
      // Leave other paths to other upgrade listeners; if there are none, refuse instead of hanging.
      if (server.listenerCount('upgrade') === 1) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    if (!accepting) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  wss.on('connection', (ws: WebSocket, request: IncomingMessage) => {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    const codec: MediaFrameCodec = options.codec ?? codecForStream(query);
    const remote = request.socket.remoteAddress;
    let phase: 'awaiting-start' | 'admitting' | 'accepted' | 'refused' = 'awaiting-start';
    const early: Record<string, unknown>[] = [];
    let session: CallPipeline | undefined;
    let inboundBytes = 0;
    const chat = options.chatLimits ? new ChatAllowance(options.chatLimits, Date.now()) : undefined;
    /** Over a chat limit: told, closing, and nothing more is taken. */
    let overLimit = false;

    const refuse = (reason: string, details: Record<string, unknown> = {}, status?: number): void => {
      if (phase === 'refused') return;
      phase = 'refused';
      clearTimeout(startTimer);
      log('warn', 'media stream refused', { reason, remote, ...details });
      // The reason tells a client what to fix (a close reason holds at most 123 bytes).
      const code = options.statusCloseCodes && status ? 4000 + status : POLICY_VIOLATION;
      ws.close(code, `refused: ${reason}`.slice(0, 120));
      // A peer that ignores the close handshake is cut off.
      setTimeout(() => ws.terminate(), 1_000).unref();
    };
    const startTimer = setTimeout(() => refuse('no start frame in time'), startTimeoutMs);
    startTimer.unref();
    const pinger = options.pingEveryMs ? setInterval(() => ws.ping(), options.pingEveryMs) : undefined;
    pinger?.unref();

    let leg: PeerLeg | undefined;
    // Frames sent in one go (a chunk of speech is many 20 ms frames) leave in one write: the socket
    // is corked from the first until the end of the tick, not written once per frame.
    const socket = request.socket;
    let corked = false;
    const uncork = (): void => {
      corked = false;
      socket.uncork();
    };
    const send = (message: object): void => {
      const frame = message as Record<string, unknown>;
      if (frame.event === 'transcript' && frame.role === 'assistant') chat?.agentAnswered();
      if (leg && PEER_FRAMES.has(String(frame.event))) return leg.send(frame);
      if (ws.readyState !== WebSocket.OPEN) return;
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      ws.send(JSON.stringify(codec.encode(frame)));
    };
    /** A peer leg's SDP exchange, over the WebSocket. */
    const negotiate = (frame: Record<string, unknown>): void => {
      const sdp = typeof frame.sdp === 'string' && frame.sdp.length <= MAX_FRAME_BYTES ? frame.sdp : null;
      if (!leg) {
        // The session carries its audio on the WebSocket (`webrtc`), or this service has no WebRTC.
        const detail = options.peerLegUnavailable ?? 'this session takes no SDP offer';
        send({ event: 'error', detail });
        ws.close(4501, detail.slice(0, 120));
        return;
      }
      if (!sdp) return send({ event: 'error', detail: 'an offer needs its sdp' });
      leg.answer(sdp).then(
        (answer) => send({ event: 'answer', sdp: answer }),
        (error: unknown) => {
          log('warn', 'could not answer an SDP offer', { error: String(error), runRef: session?.runRef });
          send({ event: 'error', detail: `the offer could not be answered: ${String(error)}` });
        },
      );
    };

    /** Chat messages within the session's bounds; the first beyond them ends the session. */
    const withinChatLimits = (frame: Record<string, unknown>): boolean => {
      if (overLimit) return false;
      if (!chat || frame.event !== 'message') return true;
      const refusal = chat.message(typeof frame.text === 'string' ? frame.text.length : 0, Date.now());
      if (!refusal) return true;
      overLimit = true;
      log('warn', 'chat session over its limits: closing it', { reason: refusal.reason, runRef: session?.runRef });
      session?.logToRun('WARN', `Chat session closed over its limits: ${refusal.detail}`);
      send({ event: 'error', detail: refusal.detail });
      ws.close(refusal.closeCode, refusal.reason);
      setTimeout(() => ws.terminate(), 1_000).unref();
      return false;
    };

    /** Media frames: size and timestamp checked; beyond the longest call the stream ends. */
    const acceptable = (frame: Record<string, unknown>): boolean => {
      if (!withinChatLimits(frame)) return false;
      if (frame.event !== 'media') return true;
      const media = frame.media as { payload?: unknown; timestamp?: unknown } | undefined;
      const payload = typeof media?.payload === 'string' ? media.payload : '';
      const bytes = Math.floor((payload.length * 3) / 4);
      if (bytes > MAX_MEDIA_PAYLOAD_BYTES) {
        log('warn', 'dropping an oversized media frame', { bytes, runRef: session?.runRef });
        return false;
      }
      const timestamp = Number(media?.timestamp ?? 0);
      if (!Number.isFinite(timestamp) || timestamp < 0 || timestamp > maxTimestampMs) {
        log('warn', 'dropping a media frame stamped outside the call', {
          timestamp: media?.timestamp,
          runRef: session?.runRef,
        });
        return false;
      }
      inboundBytes += bytes;
      if (inboundBytes > maxInboundBytes) {
        log('warn', 'the call reached MAX_CALL_SECONDS of audio: ending the stream', { runRef: session?.runRef });
        ws.close(1000, 'maximum call length');
        return false;
      }
      return true;
    };

    const startSession = (admitted: Admitted): CallPipeline => {
      const created = createSession(send, admitted);
      // `finished` resolves exactly once (stop or close, whichever first), so onFinished runs once.
      void created.finished.then((result) =>
        onFinished(result, admitted).catch((error: unknown) =>
          log('error', 'onFinished failed', { error: String(error), runRef: result.runRef }),
        ),
      );
      let hangUpTimer: NodeJS.Timeout | undefined;
      let hangingUp = false;
      let closing = false;
      const hangUpNow = (why: string): void => {
        clearTimeout(hangUpTimer);
        if (closing) return;
        closing = true;
        const before = options.beforeAgentHangUp?.(created, admitted) ?? Promise.resolve();
        void before
          .catch((error: unknown) =>
            log('error', 'before the hang-up', { error: String(error), runRef: created.runRef }),
          )
          .finally(() => {
            if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) {
              log('info', 'closing media stream after hang-up', { why, runRef: created.runRef });
              ws.close(1000, 'agent hung up');
            }
          });
      };
      void created.hangUpRequested.then((info) => {
        // The closing words are already queued at the provider; the mark echo tells us they played.
        hangingUp = true;
        send({ event: 'mark', streamSid: created.streamSid, mark: { name: HANGUP_MARK } });
        hangUpTimer = setTimeout(
          () => hangUpNow('playback timeout'),
          Math.min(maxHangUpWaitMs, info.playbackRemainingMs + hangUpGraceMs),
        );
      });
      ws.on('close', () => clearTimeout(hangUpTimer));
      deliver = (frame) => {
        if (!acceptable(frame)) return;
        // Not awaited: the session records media synchronously and queues turns internally.
        void created.handle(frame);
        if (hangingUp && isHangUpMark(frame)) hangUpNow('mark played');
      };
      return created;
    };
    let deliver: ((frame: Record<string, unknown>) => void) | undefined;

    const admit = async (start: Record<string, unknown>): Promise<void> => {
      phase = 'admitting';
      clearTimeout(startTimer);
      const claim = streamClaim(start);
      let result: AdmissionResult<Admitted>;
      try {
        result = await options.admit(claim);
      } catch (error) {
        result = { accepted: false, reason: `admission failed: ${String(error)}` };
      }
      // The peer left, or broke a rule, while we checked.
      const gone = (phase as string) === 'refused' || ws.readyState !== WebSocket.OPEN;
      if (!result.accepted)
        return gone
          ? undefined
          : refuse(result.reason, { runRef: claim.runRef, callSid: claim.callSid }, result.status);
      if (gone) {
        // Admitted all the same: the run is in progress and holds a channel, and only a session ends
        // it. This one ends at once, before its greeting, as when the caller hangs up.
        log('info', 'media stream gone while it was admitted: ending its run', { runRef: result.runRef });
        const ended = startSession(result.admitted);
        void ended.handle(start);
        void ended.finish('closed');
        return;
      }
      phase = 'accepted';
      log('info', 'media stream admitted', { runRef: result.runRef, callSid: claim.callSid });
      leg = options.peerLeg?.(result.admitted, (frame) => deliver?.(frame), log);
      session = startSession(result.admitted);
      deliver!(start);
      for (const frame of early.splice(0)) {
        if (frame.event === 'offer') negotiate(frame);
        else deliver!(frame);
      }
    };

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (phase === 'refused') return;
      const frame = isBinary ? undefined : parseFrame(data);
      if (!frame) {
        if (phase !== 'accepted') return refuse('malformed frame before admission');
        log('warn', 'ignoring a malformed media stream frame', { runRef: session?.runRef });
        return;
      }
      const canonical = codec.decode(frame, query);
      if (phase === 'accepted') return canonical.event === 'offer' ? negotiate(canonical) : deliver!(canonical);
      if (phase === 'admitting') {
        if (early.length >= MAX_FRAMES_BEFORE_ADMISSION) return refuse('too many frames before admission');
        early.push(canonical);
        return;
      }
      // awaiting-start: the provider opens with `connected`, then `start`; anything else is refused.
      if (canonical.event === 'connected') return;
      if (canonical.event === 'start') return void admit(canonical);
      refuse('a frame before the start frame', { event: canonical.event });
    });
    ws.on('close', (code) => {
      clearTimeout(startTimer);
      clearInterval(pinger);
      leg?.close();
      if (code === 1009) log('warn', 'media stream closed: frame too large', { remote, runRef: session?.runRef });
      if (session) void session.finish('closed');
      // A stream that closes while its credential is checked gets no session.
      else phase = 'refused';
    });
    ws.on('error', (error) => log('warn', 'media stream socket error', { error: String(error), remote }));
  });

  return {
    get activeConnections() {
      return wss.clients.size;
    },
    stopAccepting: () => {
      accepting = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade);
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

function streamClaim(start: Record<string, unknown>): StreamClaim {
  const body = isRecord(start.start) ? start.start : {};
  const parameters = isRecord(body.customParameters) ? body.customParameters : {};
  const text = (value: unknown) =>
    typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : null;
  return {
    runRef: text(parameters[STREAM_PARAMETERS.runRef]),
    streamToken: text(parameters[STREAM_PARAMETERS.token]),
    callSid: text(body.callSid),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseFrame(data: RawData): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(rawToString(data));
    return isRecord(parsed) && typeof parsed.event === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isHangUpMark(message: Record<string, unknown>): boolean {
  const mark = message.mark as { name?: unknown } | undefined;
  return message.event === 'mark' && mark?.name === HANGUP_MARK;
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
