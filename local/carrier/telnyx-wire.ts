import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEAD_AIR_PATIENCE_MS, type AnsweringMachine } from './callee-directory.ts';
import {
  SimulatedCarrier,
  waitUnlessAborted,
  type Answerer,
  type OutboundLine,
  type SimulatedCarrierOptions,
} from './carrier.ts';
import { isLoopback, readBody, sendJson, serveOnLoopback } from './http.ts';
import { signedEvent, TelnyxAccounts, type SimulatedTelnyxAccount, type TelnyxAccount } from './telnyx-accounts.ts';
import { newTelnyxCall, streamOf, stringOr, type TelnyxCall } from './telnyx-call.ts';
import { telnyxMessages } from './telnyx-messages.ts';
import { telnyxError, telnyxNumbers } from './telnyx-numbers.ts';
import { telnyxRegulatory } from './telnyx-regulatory.ts';
import { DEFAULT_REVIEW_DELAY_MS } from './regulatory-reviewers.ts';
import { telnyxStreamFrames } from './telnyx-stream-frames.ts';
import { telnyxTransfer } from './telnyx-transfer.ts';

export interface LocalTelnyxOptions extends SimulatedCarrierOptions {
  /** How long the local reviewers take to decide a requirement group (default DEFAULT_REVIEW_DELAY_MS). */
  reviewDelayMs?: number;
}
export type { SimulatedTelnyxAccount };

export interface LocalTelnyx {
  /** The API base URL the `telnyx` SDK takes (`…/v2`). */
  apiUrl: string;
  /** Origin of the control resources (`/_simulator/…`, tests and curl). */
  origin: string;
  /** Where a test picks up the handset of a number (`<handsetsUrl><number>`, handsets.ts): a WebSocket. */
  handsetsUrl: string;
  /** A new account owning `phoneNumbers`, its application's webhook at the platform's voice URL. */
  createAccount: (phoneNumbers: string[]) => SimulatedTelnyxAccount;
  /** Where the Call Control applications send the events of incoming calls (the platform's voice webhook). */
  setVoiceUrl: (url: string) => void;
  /** Where the accounts' messaging profiles send `message.received` (the platform's messaging webhook). */
  setMessagingUrl: (url: string) => void;
  /** Where the accounts' number-order notifications go (`number_order.complete`; the portal's setting). */
  setNumberOrderUrl: (url: string) => void;
  /** Every API request received, in order (tests assert on the requests the SDK made). */
  requests: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  /** Resolves when every call placed so far has ended and reported it. */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * A local Telnyx on the simulated carrier: the API v2 the `telnyx` SDK speaks for Call Control and
 * numbers (`POST /calls`, `POST /calls/{id}/actions/{answer,reject,hangup,speak,streaming_start,
 * streaming_stop,transfer}` (the transfer's leg: telnyx-transfer.ts), and the number resources of telnyx-numbers.ts; Bearer API keys, JSON,
 * Telnyx's `{errors}` shape), Call Control webhooks (`call.initiated`, `call.answered`,
 * `call.machine.detection.ended`, `call.machine.greeting.ended`, `call.speak.started` / `ended`,
 * `call.bridged`, `call.hangup` with its cause) signed with the account's Ed25519 key over
 * `<telnyx-timestamp>|<body>` exactly as Telnyx signs them, and media streaming framing (with
 * `stream_bidirectional_mode: rtp` the platform's `media`, `mark` and `clear` come back). As on
 * Telnyx, the stream is a side channel: the call stays up until a `hangup`. Incoming calls are rung
 * through `POST /_simulator/incoming-calls` `{from, to}` (a phone calling an account's number: the
 * application's webhook gets `call.initiated`, the platform answers or rejects by command;
 * `hang_up_first: true` makes the caller give up first, `deliver_twice: true` repeats the webhook
 * as a Telnyx retry does); a test holds a phone at a number through `/_simulator/handsets/<number>`
 * (handsets.ts), framed on the call's stream as Telnyx frames it. Accounts are created by `POST /_simulator/accounts` `{phone_numbers}`
 * (the portal) and read back at `GET /_simulator/accounts/{connection_id}`. Texts go through the
 * Messaging API of telnyx-messages.ts; a phone texts a number through
 * `POST /_simulator/incoming-messages` `{from, to, text}`.
 */
export async function startLocalTelnyx(options: LocalTelnyxOptions): Promise<LocalTelnyx> {
  const carrier = new SimulatedCarrier(options);
  const accounts = new TelnyxAccounts(carrier.numbers);
  const calls = new Map<string, TelnyxCall>();
  const requests: LocalTelnyx['requests'] = [];
  let voiceUrl: string | null = null;
  let messagingUrl: string | null = null;
  let numberOrderUrl: string | null = null;
  const regulatory = telnyxRegulatory(carrier.numbers, {
    delayMs: options.reviewDelayMs ?? DEFAULT_REVIEW_DELAY_MS,
    notify: async (connectionId, eventType, payload) => {
      const account = accounts.get(connectionId);
      if (account && numberOrderUrl && isLoopback(numberOrderUrl))
        await signedEvent(account, numberOrderUrl, eventType, payload);
    },
  });
  const messages = telnyxMessages(carrier.messaging, carrier.numbers, async (connectionId, url, eventType, payload) => {
    const account = accounts.get(connectionId);
    return account ? carrier.deliver('Local Telnyx', () => signedEvent(account, url, eventType, payload)) : undefined;
  });

  /** A Call Control webhook as Telnyx sends it: JSON, signed with the account's Ed25519 key. */
  async function sendEvent(call: TelnyxCall, eventType: string, extra: Record<string, unknown> = {}) {
    const url = call.webhookUrl ?? voiceUrl;
    if (!url || !isLoopback(url)) return undefined;
    const response = await carrier.deliver('Local Telnyx', () =>
      signedEvent(call.account, url, eventType, {
        call_control_id: call.id,
        call_leg_id: call.legId,
        call_session_id: call.sessionId,
        connection_id: call.account.connection_id,
        client_state: call.clientState,
        from: call.from,
        to: call.to,
        direction: call.direction,
        state: call.state,
        ...extra,
      }),
    );
    if (response && !response.ok && !carrier.inProgress.stopping)
      console.error(`Local Telnyx: ${eventType} webhook answered ${response.status}: ${await response.text()}`);
    return response;
  }

  /** The callee's side of an answered call over Telnyx media streaming, until the call or the stream stops. */
  const converse = (call: TelnyxCall, machine?: AnsweringMachine) =>
    carrier.converse(
      call,
      {
        url: call.stream!.url,
        hangUp: AbortSignal.any([call.hangUp.signal, call.streamStop.signal]),
        frames: telnyxStreamFrames(call),
      },
      machine,
    );

  async function hangUpWith(call: TelnyxCall, cause: string): Promise<void> {
    call.state = 'hangup';
    call.account.ended.push({
      call_control_id: call.id,
      hangup_source: call.hangupSource,
      stream_ended_at: call.streamEndedAt,
      hung_up_at: Date.now(),
    });
    await sendEvent(call, 'call.hangup', { hangup_cause: cause, hangup_source: call.hangupSource });
  }

  /**
   * An answered call: streams until the callee or the platform hangs up; resolves to the hang-up
   * cause. As on Telnyx, the media stream is a side channel of the call: when the platform closes
   * it, the call stays up (billed) until a `hangup` command, or the callee gives up on the dead air.
   * After `streaming_stop` it stays up until the platform hangs up (after its `speak`), or the
   * callee's time is up.
   */
  async function talk(call: TelnyxCall, machine?: AnsweringMachine): Promise<string> {
    if (call.stream && isLoopback(call.stream.url) && !call.hangUp.signal.aborted) {
      let end: 'stream-closed' | 'ended';
      try {
        end = await converse(call, machine);
      } catch (error) {
        carrier.logFailure('Local Telnyx', 'media stream failed', error);
        return 'unspecified';
      }
      call.streamEndedAt = Date.now();
      if (call.streamStop.signal.aborted) await waitUnlessAborted(options.callSeconds * 1000, call.hangUp.signal);
      else if (end === 'stream-closed') await waitUnlessAborted(DEAD_AIR_PATIENCE_MS, call.hangUp.signal);
    } else {
      await waitUnlessAborted(options.callSeconds * 1000, call.hangUp.signal);
    }
    return 'normal_clearing';
  }

  /**
   * Answering-machine detection as Telnyx reports it to the call's webhook:
   * `call.machine.detection.ended` (`human`, `machine`, or `not_sure` when it times out) a few
   * seconds after the answer, then for a machine with `detect_beep` `call.machine.greeting.ended`
   * once its greeting is over (`beep_detected`, or `ended` for a machine without a beep). Nothing is
   * sent for a call that ended first.
   */
  async function detectAnsweringMachine(call: TelnyxCall, answerer: Answerer, at: (ms: number) => Promise<boolean>) {
    if (!call.detectMachine) return;
    const { machine } = answerer;
    const result = machine ? 'machine' : answerer.kind === 'unknown' ? 'not_sure' : 'human';
    if (!(await at(answerer.verdictMs)) || call.state !== 'active') return;
    await sendEvent(call, 'call.machine.detection.ended', { result });
    if (!machine || !call.detectBeep) return;
    if (!(await at(answerer.greetingEndMs!)) || call.state !== 'active') return;
    await sendEvent(call, 'call.machine.greeting.ended', { result: machine.beep ? 'beep_detected' : 'ended' });
  }

  /** An outbound call's progress as Call Control events. */
  const outbound: OutboundLine<TelnyxCall, string> = {
    ringing: (call) => sendEvent(call, 'call.initiated').then(() => undefined),
    unanswered: (call, why) =>
      hangUpWith(call, { canceled: 'originator_cancel', busy: 'user_busy', 'no-answer': 'timeout' }[why]),
    async answered(call) {
      call.state = 'active';
      await sendEvent(call, 'call.answered');
    },
    detect: detectAnsweringMachine,
    talk,
    ended: hangUpWith,
  };

  const transferLeg = telnyxTransfer({ carrier, sendEvent, hangUpWith, added: (leg) => calls.set(leg.id, leg) });

  /** `speak`: Telnyx's text-to-speech, then `call.speak.ended`. */
  async function speak(call: TelnyxCall, text: string): Promise<void> {
    await sendEvent(call, 'call.speak.started');
    if (await carrier.say(call, text)) await sendEvent(call, 'call.speak.ended', { status: 'completed' });
  }

  /**
   * A phone calling one of an account's numbers: `call.initiated` to the application, then the
   * platform's command. `hangUpFirst`: the caller gives up while the webhook is on its way, so the
   * command finds the call over. `deliverTwice`: the webhook is delivered again (Telnyx retries
   * when it got no 2xx in time), so the platform's command comes twice.
   */
  async function ringIncoming(from: string, to: string, hangUpFirst: boolean, deliverTwice: boolean) {
    const account = accounts.get(carrier.numbers.holder(to)?.owner ?? '');
    if (!account) return { status: 404, body: { detail: `No Telnyx account owns ${to}` } };
    const call = newTelnyxCall(account, { from, to, direction: 'incoming', state: 'parked', hangupSource: 'caller' });
    const outcome = new Promise<'answered' | 'rejected'>((resolve) => (call.answered = resolve));
    calls.set(call.id, call);
    if (hangUpFirst) call.state = 'hangup';
    const response = await sendEvent(call, 'call.initiated');
    if (!response?.ok) return { status: 502, body: { detail: `The voice webhook answered ${response?.status}` } };
    if (hangUpFirst) {
      await sendEvent(call, 'call.hangup', { hangup_cause: 'originator_cancel', hangup_source: 'caller' });
      return { status: 200, body: { call_control_id: call.id, answer: 'caller_hung_up' } };
    }
    if (deliverTwice) await sendEvent(call, 'call.initiated');
    // Telnyx waits for a command; the caller gives up after a while.
    const answer = await Promise.race([outcome, sleep(10_000).then(() => 'unanswered' as const)]);
    return { status: 200, body: { call_control_id: call.id, answer } };
  }

  function dial(user: TelnyxAccount, body: Record<string, unknown>, response: ServerResponse): void {
    const to = String(body.to ?? '');
    const from = String(body.from ?? '');
    if (body.connection_id !== user.connection_id)
      return telnyxError(response, 422, '10015', 'Invalid value for connection_id');
    if (!E164.test(to)) return telnyxError(response, 422, '10016', 'Invalid value for to');
    if (!carrier.numbers.owns(user.connection_id, from))
      return telnyxError(response, 422, '10016', 'Invalid value for from', 'The number is not on your account');
    user.created.push(Date.now());
    const detection = String(body.answering_machine_detection);
    const call: TelnyxCall = {
      ...newTelnyxCall(user, { from, to, direction: 'outgoing', state: 'bridging', hangupSource: 'callee' }),
      webhookUrl: stringOr(body.webhook_url, null),
      clientState: stringOr(body.client_state, null),
      stream: streamOf(body),
      detectMachine: ['detect', 'detect_beep', 'detect_words', 'greeting_end', 'premium'].includes(detection),
      detectBeep: ['detect_beep', 'premium'].includes(detection),
    };
    calls.set(call.id, call);
    carrier.track(call.hangUp, carrier.placeOutbound(call, outbound));
    sendJson(response, 200, {
      data: {
        call_control_id: call.id,
        call_leg_id: call.legId,
        call_session_id: call.sessionId,
        is_alive: false,
        record_type: 'call',
      },
    });
  }

  /** A Call Control command on a call of the account (`POST /v2/calls/{id}/actions/{verb}`). */
  function command(call: TelnyxCall, verb: string, body: Record<string, unknown>, response: ServerResponse): void {
    const ok = () => sendJson(response, 200, { data: { result: 'ok' } });
    const commandId = stringOr(body.command_id, undefined);
    if (commandId && call.commandIds.has(commandId)) return ok();
    if (commandId) call.commandIds.add(commandId);
    if (call.state === 'hangup') return telnyxError(response, 422, '90018', 'Call has already ended');
    if (verb === 'hangup') {
      call.hangupSource = 'caller';
      call.hangUp.abort();
      return ok();
    }
    if (verb === 'answer' || verb === 'reject') {
      if (call.state !== 'parked') return telnyxError(response, 422, '90061', 'Call is not in a parked state');
      if (verb === 'reject') {
        call.answered('rejected');
        carrier.track(call.hangUp, hangUpWith(call, body.cause === 'USER_BUSY' ? 'user_busy' : 'call_rejected'));
        return ok();
      }
      call.state = 'active';
      call.webhookUrl = stringOr(body.webhook_url, call.webhookUrl);
      call.clientState = stringOr(body.client_state, call.clientState);
      call.stream = streamOf(body);
      call.answered('answered');
      carrier.track(
        call.hangUp,
        (async () => {
          await sendEvent(call, 'call.answered');
          await hangUpWith(call, await talk(call));
        })(),
      );
      return ok();
    }
    if (call.state !== 'active') return telnyxError(response, 422, '90018', 'Call is not active');
    if (verb === 'streaming_start') {
      // A call without a stream (stopped before a transfer) streams again: the callee talks on.
      call.stream = streamOf(body);
      call.streamStop = new AbortController();
      const streaming = converse(call).then(
        () => undefined,
        (error: unknown) => carrier.logFailure('Local Telnyx', 'media stream failed', error),
      );
      carrier.track(new AbortController(), streaming);
    } else if (verb === 'transfer') {
      const to = String(body.to ?? '');
      if (!E164.test(to) && !/^sips?:/.test(to)) return telnyxError(response, 422, '10016', 'Invalid value for to');
      carrier.track(new AbortController(), transferLeg(call, body));
    } else if (verb === 'streaming_stop') call.streamStop.abort();
    else if (typeof body.payload !== 'string' || typeof body.voice !== 'string')
      return telnyxError(response, 422, '10015', 'Invalid speak command', 'payload and voice are required');
    else carrier.track(new AbortController(), speak(call, body.payload));
    return ok();
  }

  /** Control resources: the portal and the outside world, not Telnyx's API. Undefined when `path` is none of them. */
  async function control(
    method: string | undefined,
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: unknown } | undefined> {
    if (path === '/_simulator/accounts' && method === 'POST') {
      const numbers = Array.isArray(body.phone_numbers) ? body.phone_numbers.map(String) : [];
      return { status: 201, body: accounts.create(numbers) };
    }
    const stats = /^\/_simulator\/accounts\/(\d+)$/.exec(path);
    if (stats) {
      const found = accounts.get(stats[1]!);
      const perSecond =
        method === 'POST' && typeof body.messages_per_second === 'number' ? body.messages_per_second : undefined;
      return found
        ? {
            status: 200,
            body: {
              calls_created_at: found.created,
              calls_ended: found.ended,
              ...carrier.messaging.limits(found.connection_id, perSecond),
            },
          }
        : { status: 404, body: { detail: 'Not Found' } };
    }
    if (path === '/_simulator/incoming-messages' && method === 'POST')
      return messages.incoming(String(body.from ?? ''), String(body.to ?? ''), String(body.text ?? ''), messagingUrl);
    if (path === '/_simulator/messages' && method === 'GET') return { status: 200, body: carrier.messaging.messages };
    if (path === '/_simulator/spoken' && method === 'GET')
      return {
        status: 200,
        body: carrier.spoken.map(({ callId, ...said }) => ({ call_control_id: callId, ...said })),
      };
    if (path === '/_simulator/transfers' && method === 'GET')
      return {
        status: 200,
        body: carrier.transfers.map(({ callId, callerId: _callerId, ...transfer }) => ({
          call_control_id: callId,
          ...transfer,
        })),
      };
    if (path === '/_simulator/incoming-calls' && method === 'POST')
      return ringIncoming(
        String(body.from ?? ''),
        String(body.to ?? ''),
        body.hang_up_first === true,
        body.deliver_twice === true,
      );
    return undefined;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const text = await readBody(request);
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return telnyxError(response, 400, '10015', 'Bad Request', 'The request body is not valid JSON');
    }
    const path = url.pathname;
    const controlled = await control(request.method, path, body);
    if (controlled) return sendJson(response, controlled.status, controlled.body);

    requests.push({
      method: request.method ?? '',
      path: decodeURIComponent(`${path}${url.search}`),
      authorization: request.headers.authorization,
      body: text ? body : undefined,
    });
    const user = accounts.signedIn(request);
    if (!user) return telnyxError(response, 401, '10009', 'Authentication failed', 'Could not understand the API key');

    if (path === '/v2/calls' && request.method === 'POST') return dial(user, body, response);
    const action =
      /^\/v2\/calls\/([^/]+)\/actions\/(answer|reject|hangup|speak|streaming_stop|streaming_start|transfer)$/.exec(
        path,
      );
    if (action && request.method === 'POST') {
      const call = calls.get(action[1]!);
      if (!call || call.account !== user) return telnyxError(response, 404, '10005', 'Resource not found');
      return command(call, action[2]!, body, response);
    }
    if (messages.resource(user.connection_id, { method: request.method, path, body }, response)) return;
    const numbersRequest = { method: request.method, path, query: url.searchParams, body };
    if (regulatory.resource(user.connection_id, numbersRequest, response)) return;
    if (telnyxNumbers(carrier.numbers, user.connection_id, numbersRequest, response)) return;
    return telnyxError(response, 404, '10005', 'Resource not found');
  }

  const { server, origin } = await serveOnLoopback('Local Telnyx', handle, (response) =>
    telnyxError(response, 500, '10007', 'Unexpected error'),
  );
  return {
    apiUrl: `${origin}/v2`,
    origin,
    handsetsUrl: carrier.serveHandsets(server, origin),
    createAccount: (phoneNumbers) => accounts.create(phoneNumbers),
    setVoiceUrl: (url) => {
      voiceUrl = url;
    },
    setMessagingUrl: (url) => {
      messagingUrl = url;
    },
    setNumberOrderUrl: (url) => {
      numberOrderUrl = url;
    },
    requests,
    idle: () => carrier.idle(),
    stop: () => {
      regulatory.stop();
      return carrier.stop(server);
    },
  };
}
