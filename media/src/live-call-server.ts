/**
 * The media task's side of live listen and control (the API's side is
 * shared/services/live-call-api.ts), for the calls and sessions this task holds. `/listen` is a
 * WebSocket that streams a call's audio (both sides) and events to a listener with a listen
 * credential; `/control` takes a command (say, add a message, end) with a control credential, from the API's
 * control operation. Behind the load balancer a request may reach any task: one that does not
 * hold the call passes it on to the task that does (noted on the run at admission, `media_host`),
 * over the VPC, once (RELAY_HEADER); the credential is checked again there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import {
  CONTROL_PATH,
  LISTEN_PATH,
  type LivePurpose,
  MAX_CONTROL_REQUEST_BYTES,
  MAX_LISTENERS_PER_CALL,
  purposeRef,
  RELAY_HEADER,
} from '../../shared/domain/live-call-access.ts';
import { parseRunRef } from '../../shared/domain/run-ref.ts';
import type { RunLogLine } from '../../shared/domain/run.ts';
import { appendRunLog } from '../../shared/repositories/run-logs.ts';
import { getRun } from '../../shared/repositories/runs-read.ts';
import { MediaControlCommand } from '../../shared/schemas/live-calls.ts';
import { checkStreamToken } from '../../shared/telephony/stream-token.ts';
import type { CallPipeline } from './call/call-pipeline.ts';
import type { LogFn } from './call/call-types.ts';
import type { LiveEvent } from './call/live-tap.ts';

/** A listener this far behind gets no more audio until it catches up (events still go): a slow one never holds the task's memory. */
const MAX_LISTENER_BUFFER_BYTES = 256 * 1024;
/** How long a task waits for the task holding the call to take a command. */
const RELAY_TIMEOUT_MS = 5_000;
export const MEDIA_FORMAT = { encoding: 'audio/x-mulaw', sample_rate: 8000, channels: 1 } as const;
/** The longest a listener or command waits for a stream being admitted here to become its session. */
const ADMISSION_WAIT_MS = 10_000;

type Location = { session: CallPipeline } | { host: string } | { status: number; reason: string };

export class LiveCalls {
  private readonly sessions = new Map<string, CallPipeline>();
  /** Streams being admitted here, by run: each settles with its session (add) or none (refused). */
  private readonly admissions = new Map<
    string,
    { session: Promise<CallPipeline | undefined>; settle: (session?: CallPipeline) => void }
  >();
  private readonly listenerCounts = new Map<string, number>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });

  /** `self`: this task's `host:port` as other tasks reach it (what its admissions note on runs). */
  constructor(
    private readonly self: () => string,
    private readonly log: LogFn,
    /** Writes a line to a live run's logs (false: the run has ended); replaced in tests of its failure. */
    private readonly appendLog: typeof appendRunLog = appendRunLog,
  ) {}

  /**
   * A stream of `runRef` is being admitted here until `admission` settles. The admission notes the
   * run's media host, which the API's listen and control check, before the stream's session exists:
   * a listener or command arriving in between waits for the session rather than being told the
   * call's media has ended.
   */
  admitting(runRef: string, admission: Promise<{ accepted: boolean }>): void {
    let resolve!: (session?: CallPipeline) => void;
    const entry = {
      session: new Promise<CallPipeline | undefined>((settled) => (resolve = settled)),
      settle: (session?: CallPipeline) => {
        if (this.admissions.get(runRef) === entry) this.admissions.delete(runRef);
        resolve(session);
      },
    };
    this.admissions.set(runRef, entry);
    const { settle } = entry;
    // Accepted: `add` settles it with the session. Refused or failed: no session comes.
    admission.then(
      (result) => {
        if (!result.accepted) settle();
      },
      () => settle(),
    );
  }

  /** The call or session of `runRef` is live here until it finishes. */
  add(runRef: string, session: CallPipeline): void {
    this.sessions.set(runRef, session);
    this.admissions.get(runRef)?.settle(session);
    void session.finished.then(() => {
      if (this.sessions.get(runRef) === session) this.sessions.delete(runRef);
    });
  }

  /** Claims upgrades on LISTEN_PATH; false for other paths. */
  readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== LISTEN_PATH) return false;
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.listen(ws, request).catch((error: unknown) => {
        this.log('error', 'listener failed', { error: String(error) });
        ws.close(1011, 'listen failed');
      });
    });
    return true;
  };

  /** Handles POST CONTROL_PATH; false for other requests. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== CONTROL_PATH) return false;
    const reply = (status: number, body: object) =>
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST') {
      reply(405, { detail: 'Method Not Allowed' });
      return true;
    }
    this.control(request).then(
      ({ status, body }) => reply(status, body),
      (error: unknown) => {
        this.log('error', 'control command failed', { error: String(error) });
        reply(500, { detail: 'The command could not be applied' });
      },
    );
    return true;
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
  }

  private async authorize(purpose: LivePurpose, runRef: unknown, token: unknown) {
    if (typeof runRef !== 'string' || !parseRunRef(runRef)) return { status: 400, reason: 'no valid run reference' };
    const check = await checkStreamToken(purposeRef(purpose, runRef), token);
    return check === 'valid' ? null : { status: 401, reason: `${purpose} credential ${check}` };
  }

  /** Where the live call is: on this task, on another, or nowhere (why). */
  private async locate(runRef: string, relayed: boolean): Promise<Location> {
    const admission = this.sessions.has(runRef) ? undefined : this.admissions.get(runRef)?.session;
    if (admission) await Promise.race([admission, sleep(ADMISSION_WAIT_MS, undefined, { ref: false })]);
    const session = this.sessions.get(runRef);
    if (session && !session.isFinished) return { session };
    if (relayed) return { status: 409, reason: 'the call is not live on the media task noted for it' };
    const ref = parseRunRef(runRef)!;
    const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
    if (!run || run.status !== 'in_progress') return { status: 409, reason: 'the call is not in progress' };
    if (!run.media_host) return { status: 409, reason: 'the call is not live yet (its media has not started)' };
    if (run.transfer && !run.transfer.resumed_at)
      return { status: 409, reason: 'the call is being transferred to a person: the agent has left it' };
    if (run.media_host === this.self()) return { status: 409, reason: "the call's media has ended" };
    return { host: run.media_host };
  }

  private async listen(ws: WebSocket, request: IncomingMessage): Promise<void> {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    const runRef = query.get('run_ref') ?? '';
    const refuse = (status: number, reason: string) => {
      this.log('warn', 'listener refused', { runRef, reason });
      ws.close(4000 + status, `refused: ${reason}`.slice(0, 120));
    };
    const unauthorized = await this.authorize('listen', runRef, query.get('token'));
    if (unauthorized) return refuse(unauthorized.status, unauthorized.reason);
    const where = await this.locate(runRef, request.headers[RELAY_HEADER] !== undefined);
    if ('reason' in where) return refuse(where.status, where.reason);
    if ('host' in where) return this.relay(ws, `ws://${where.host}${request.url}`);
    const count = this.listenerCounts.get(runRef) ?? 0;
    if (count >= MAX_LISTENERS_PER_CALL) return refuse(429, `the call has ${MAX_LISTENERS_PER_CALL} listeners already`);
    if (ws.readyState !== WebSocket.OPEN) return;
    this.listenerCounts.set(runRef, count + 1);
    this.log('info', 'listener connected', { runRef, listeners: count + 1 });
    ws.send(JSON.stringify({ event: 'start', run_ref: runRef, media_format: MEDIA_FORMAT }));
    const stop = where.session.observe((event: LiveEvent) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (event.event === 'media' && ws.bufferedAmount > MAX_LISTENER_BUFFER_BYTES) return;
      ws.send(JSON.stringify(event));
      if (event.event === 'end') ws.close(1000, 'call ended');
    });
    ws.on('close', () => {
      stop();
      const left = (this.listenerCounts.get(runRef) ?? 1) - 1;
      if (left > 0) this.listenerCounts.set(runRef, left);
      else this.listenerCounts.delete(runRef);
    });
  }

  /** Passes a listener on to the task holding the call, frame by frame, closes included. */
  private relay(ws: WebSocket, url: string): void {
    const upstream = new WebSocket(url, { headers: { [RELAY_HEADER]: '1' } });
    upstream.on('message', (data: RawData, isBinary: boolean) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data, { binary: isBinary });
    });
    upstream.on('close', (code, reason) => ws.close(sendableCode(code), reason));
    upstream.on('error', (error) => {
      this.log('warn', 'could not reach the media task holding the call', {
        url: url.split('?')[0],
        error: String(error),
      });
      ws.close(4502, 'refused: the media task holding the call could not be reached');
    });
    ws.on('close', () => upstream.close());
  }

  private async control(request: IncomingMessage): Promise<{ status: number; body: object }> {
    const raw = await readBody(request, MAX_CONTROL_REQUEST_BYTES);
    let body: { run_ref?: unknown; token?: unknown; command?: unknown };
    try {
      body = raw === undefined ? {} : (JSON.parse(raw) as typeof body);
    } catch {
      body = {};
    }
    const command = MediaControlCommand.safeParse(body.command);
    if (raw === undefined || !command.success)
      return {
        status: 400,
        body: { detail: `A control request is {run_ref, token, command} (at most ${MAX_CONTROL_REQUEST_BYTES} bytes)` },
      };
    const unauthorized = await this.authorize('control', body.run_ref, body.token);
    if (unauthorized) return { status: unauthorized.status, body: { detail: unauthorized.reason } };
    const runRef = body.run_ref as string;
    const where = await this.locate(runRef, request.headers[RELAY_HEADER] !== undefined);
    if ('reason' in where) return { status: where.status, body: { detail: where.reason } };
    if ('host' in where) {
      try {
        const passed = await fetch(`http://${where.host}${CONTROL_PATH}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [RELAY_HEADER]: '1' },
          body: raw,
          signal: AbortSignal.timeout(RELAY_TIMEOUT_MS),
        });
        return { status: passed.status, body: (await passed.json()) as object };
      } catch (error) {
        this.log('warn', 'could not reach the media task holding the call', { host: where.host, error: String(error) });
        return { status: 502, body: { detail: 'The media task holding the call could not be reached' } };
      }
    }
    // The command's log line is written before it is applied: a command the run's logs cannot
    // record is not applied (the audit trail of who steered a call is never short of one).
    const ref = parseRunRef(runRef)!;
    const line: RunLogLine = {
      timestamp: new Date().toISOString(),
      level: 'INFO',
      message: controlLogMessage(command.data),
    };
    try {
      if (!(await this.appendLog(ref, line)))
        return { status: 409, body: { detail: 'The command was not applied: the call has ended' } };
    } catch (error) {
      this.log('error', 'could not write a control command to the run log: not applied', {
        runRef,
        error: String(error),
      });
      return {
        status: 503,
        body: { detail: 'The command was not applied: the run log could not record it; try again' },
      };
    }
    const refusal = await where.session.control(command.data);
    if (refusal) {
      const notApplied = { timestamp: new Date().toISOString(), level: 'WARN', message: `Not applied: ${refusal}` };
      await this.appendLog(ref, notApplied).catch((error: unknown) =>
        this.log('error', 'could not write a refused control command to the run log', { runRef, error: String(error) }),
      );
      return { status: 409, body: { detail: `The command was not applied: ${refusal}` } };
    }
    this.log('info', 'control command applied', { runRef, type: command.data.type });
    return { status: 200, body: { status: 'applied' } };
  }
}

/** The run's log line of a control command (before it is applied). */
export function controlLogMessage(command: MediaControlCommand): string {
  switch (command.type) {
    case 'say':
      return `Said through the control API: ${command.text.slice(0, 300)}`;
    case 'add_message':
      return `Message added through the control API: ${command.content.slice(0, 300)}`;
    case 'end':
      return 'Ended through the control API';
    case 'transfer':
      return `Transfer to ${command.destination} through the control API`;
    case 'send_sms':
      return `Text message through the control API: ${command.template ? `template ${command.template}` : (command.text ?? '').slice(0, 300)}`;
    case 'caller_text':
      return `Text message ${command.sms_id} passed to the agent`;
  }
}

/** Close codes a peer may send (1005, 1006 and 1015 are reserved for reporting). */
const sendableCode = (code: number): number => ([1005, 1006, 1015].includes(code) ? 1011 : code);

/** A request's body as text; undefined past `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
