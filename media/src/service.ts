/**
 * The media service: `/healthz` for the load balancer, `/media`, the Media Streams WebSocket the
 * telephony provider connects each answered call to, and `/sessions`, where a browser connects a
 * voice or chat session of a conversation; `/listen` and `/control` for live listen and control of
 * those calls (live-call-server.ts). The same code runs in the Fargate task and, in process, in the
 * local stack.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrowserSession, createCallSession, prepareEarlyCall, type CallSessionConfig } from './call-sessions.ts';
import { saveCall, transferCall } from './call-saving.ts';
import { HEALTH_PATH, MEDIA_STREAM_PATH } from './deployment.ts';
import { maxCallSeconds } from '../../shared/config/call-length.ts';
import { streamTokenKey } from '../../shared/telephony/stream-token.ts';
import type { RunRecord } from '../../shared/domain/run.ts';
import { BROWSER_SESSION_PATH, PEER_TO_PEER_MODE } from '../../shared/domain/browser-sessions.ts';
import { WebRtcLeg, type WebRtcSettings } from './streams/webrtc-leg.ts';
import { twilioMediaCodec } from '../../shared/telephony/media-codecs.ts';
import { admitBrowserSession, admitStream } from './stream-admission.ts';
import { CHAT_LIMITS } from './streams/chat-limits.ts';
import { attachMediaStreams, type AdmissionResult, type StreamClaim } from './streams/websocket-server.ts';
import { LiveCalls } from './live-call-server.ts';
import { CallPreparer } from './call-preparer.ts';
import { handlePrepareRequest, type PrepareRequest } from './prepare-endpoint.ts';
import { LISTEN_PATH } from '../../shared/domain/live-call-access.ts';
import { formatRunRef } from '../../shared/domain/run-ref.ts';
import type { CallPipeline } from './call/call-pipeline.ts';
import type { LogFn } from './call/call-types.ts';
import { emitCallLatency, type TurnTelemetry } from './telemetry/turn-telemetry.ts';

export { MEDIA_STREAM_PATH };

/** Well inside the load balancer's 60 s idle timeout. */
const SESSION_PING_MS = 25_000;

export interface MediaService {
  port: number;
  /** Calls whose media stream is open. */
  readonly activeCalls: number;
  /** Calls prepared while they ring, their stream not started yet (call-preparer.ts). */
  readonly preparedCalls: number;
  /**
   * Graceful stop: the health check answers 503 and new streams are refused, calls in progress
   * run on for up to `maxWaitMs`, then whatever is left is closed and saved like `close()`.
   */
  drain: (maxWaitMs: number) => Promise<void>;
  /** Closes every stream at once; resolves when their recordings and completions are saved. */
  close: () => Promise<void>;
}

export async function startMediaService(options: {
  port: number;
  host?: string;
  calls: CallSessionConfig;
  log: LogFn;
  /** Where each voice call's turn latency goes when it ends (media-telemetry.ts from the task's settings). */
  telemetry: TurnTelemetry;
  /**
   * The most calls the task holds (MEDIA_MAX_CALLS); a stream beyond it is refused cleanly, its
   * run ended `failed` with the reason. Unset: no limit (the local stack).
   */
  maxCalls?: number;
  /**
   * Peer-to-peer WebRTC for `smallwebrtc` sessions: where ICE gathers (the local stack: loopback).
   * Unset (AWS): the tasks are not reachable over UDP, and an offer is refused, naming why.
   */
  webrtc?: WebRtcSettings;
  /**
   * This task's address as the other tasks reach it (its private IP on AWS), noted on the runs it
   * admits so their listeners and control commands find it; default 127.0.0.1. The port is the
   * one the service listens on.
   */
  advertisedHost?: string;
  /**
   * Calls are made ready while they ring (MEDIA_EARLY_CONNECTIONS, call-preparer.ts): the dialer
   * asks (POST /prepare), and the answered call's stream starts with them. Off: every call opens
   * what it needs on answer.
   */
  earlyConnections?: boolean;
}): Promise<MediaService> {
  // Streams are admitted only with credentials signed with this key (read at run time, cached):
  // refuse to start without it, naming the secret.
  await streamTokenKey();
  let draining = false;
  let address = '';
  /** Calls in progress, and streams being admitted (each takes a slot until it is one or is refused). */
  let calls = 0;
  let admitting = 0;
  const live = new LiveCalls(() => address, options.log);
  // A prepared call holds its setup and its greeting's audio, not a call's per-frame work:
  // preparing stops where prepared and running calls together fill the task.
  const preparer = new CallPreparer({
    log: options.log,
    room: (prepared) =>
      !draining && (options.maxCalls === undefined || calls + admitting + prepared < options.maxCalls),
  });
  const prepare = options.earlyConnections
    ? ({ runRef, mode, initialContext, definitionId, campaignGoal, phoneNumber }: PrepareRequest) =>
        preparer.prepare(runRef, () =>
          prepareEarlyCall(
            options.calls,
            runRef,
            {
              mode,
              initial_context: initialContext,
              definition_id: definitionId,
              campaign: campaignGoal ? { goal: campaignGoal } : null,
              phone_number: phoneNumber,
            },
            options.log,
          ),
        )
    : null;
  const server = createServer((request, response) => {
    if (live.handleRequest(request, response)) return;
    if (handlePrepareRequest(request, response, prepare)) return;
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const health = path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD');
    const [status, body] = !health
      ? [404, { detail: 'Not Found' }]
      : draining
        ? [503, { status: 'draining' }]
        : [200, { status: 'ok' }];
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(request.method === 'HEAD' ? undefined : JSON.stringify(body));
  });
  // Sessions until they end, and their saves until written: a stop waits for both.
  const unfinished = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    unfinished.add(work);
    void work.then(
      () => unfinished.delete(work),
      () => unfinished.delete(work),
    );
    return work;
  };
  /** Calls and browser sessions share the task's capacity. */
  const admittedBy =
    (
      admission: (
        claim: StreamClaim,
        mediaHost: string,
        now: number,
        atCapacity?: string,
      ) => Promise<AdmissionResult<RunRecord>>,
    ) =>
    async (claim: StreamClaim) => {
      const full = options.maxCalls !== undefined && calls + admitting >= options.maxCalls;
      if (full) options.log('warn', 'media stream refused: the task is at capacity', { maxCalls: options.maxCalls });
      admitting += 1;
      const result = admission(
        claim,
        address,
        Date.now(),
        full ? `the media task is at capacity (${options.maxCalls} calls)` : undefined,
      );
      if (claim.runRef) live.admitting(claim.runRef, result);
      try {
        return await result;
      } finally {
        admitting -= 1;
      }
    };
  const runRefOf = (run: RunRecord) =>
    formatRunRef({ organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id });
  const counted = (session: CallPipeline, run: RunRecord) => {
    live.add(runRefOf(run), session);
    calls += 1;
    track(session.finished);
    void session.finished.then((result) => {
      calls -= 1;
      emitCallLatency(options.telemetry, run, result, options.log);
    });
    return session;
  };
  const endpoints = [
    attachMediaStreams<RunRecord>(
      server,
      MEDIA_STREAM_PATH,
      (send, run) =>
        counted(createCallSession(options.calls, send, options.log, run, preparer.take(runRefOf(run))), run),
      (result, run) => track(saveCall(result, run, options.log)),
      {
        admit: admittedBy(admitStream),
        maxCallSeconds: maxCallSeconds(),
        log: options.log,
        beforeAgentHangUp: (session, run) => transferCall(session, run, options.log),
      },
    ),
    attachMediaStreams<RunRecord>(
      server,
      BROWSER_SESSION_PATH,
      (send, run) => counted(createBrowserSession(options.calls, send, options.log, run), run),
      (result, run) => track(saveCall(result, run, options.log)),
      {
        admit: admittedBy(admitBrowserSession),
        maxCallSeconds: maxCallSeconds(),
        log: options.log,
        codec: twilioMediaCodec,
        statusCloseCodes: true,
        chatLimits: CHAT_LIMITS,
        pingEveryMs: SESSION_PING_MS,
        peerLeg: (run, deliver, log) =>
          run.mode === PEER_TO_PEER_MODE && options.webrtc ? new WebRtcLeg(options.webrtc, deliver, log) : undefined,
        peerLegUnavailable: options.webrtc
          ? undefined
          : 'peer-to-peer WebRTC is not served by this deployment (it needs UDP to the media tasks and a TURN server): use mode webrtc',
      },
    ),
  ];
  // Upgrades to any other path are refused rather than left hanging.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (live.onUpgrade(request, socket, head)) return;
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== MEDIA_STREAM_PATH && path !== BROWSER_SESSION_PATH && path !== LISTEN_PATH)
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  const activeConnections = () => endpoints.reduce((sum, endpoint) => sum + endpoint.activeConnections, 0);
  const close = async () => {
    live.close();
    await preparer.close();
    await Promise.all(endpoints.map((endpoint) => endpoint.close()));
    while (unfinished.size > 0) await Promise.allSettled([...unfinished]);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${options.advertisedHost ?? '127.0.0.1'}:${port}`;
  return {
    port,
    get activeCalls() {
      return activeConnections();
    },
    get preparedCalls() {
      return preparer.size;
    },
    drain: async (maxWaitMs) => {
      draining = true;
      for (const endpoint of endpoints) endpoint.stopAccepting();
      const deadline = Date.now() + maxWaitMs;
      options.log('info', 'draining: waiting for calls in progress', {
        activeCalls: activeConnections(),
        maxWaitMs,
      });
      while (activeConnections() > 0 && Date.now() < deadline) await sleep(Math.min(500, deadline - Date.now()));
      if (activeConnections() > 0)
        options.log('warn', 'drain time is up: closing the remaining calls', {
          activeCalls: activeConnections(),
        });
      await close();
    },
    close,
  };
}
