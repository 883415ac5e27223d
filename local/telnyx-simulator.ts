import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { availableInventory, type SimulatedNumber } from './number-marketplace.ts';
import {
  answeringMachine,
  CallsInProgress,
  DETECTION_MS,
  simulatedAnswerer,
  simulatedKeys,
  simulatedMenu,
  simulatedScript,
  talkAsCallee,
  TRANSFER_TALK_MS,
  TTS_MS_PER_CHARACTER,
  waitUnlessAborted,
  DEAD_AIR_PATIENCE_MS,
  type AnsweringMachine,
  type SimulatedAnswerer,
} from './simulated-callee.ts';
import { simulatedOutcome } from './telephony-simulator.ts';
import { parseWavHeader, WAV_HEADER_BYTES } from '../media/src/audio/wav.ts';
import { speechText } from '../media/src/audio/tones.ts';

export interface TelnyxSimulatorOptions {
  /** How long an answered call lasts before the callee hangs up. */
  callSeconds: number;
  /** Ringing before an outcome. */
  ringMs?: number;
}

/** A Telnyx account as the portal shows it: an API key, the webhook public key, one Call Control application. */
export interface SimulatedTelnyxAccount {
  api_key: string;
  /** Ed25519, base64 of the raw 32 bytes (Portal → Keys & Credentials → Public Key). */
  public_key: string;
  /** The Call Control application (connection) calls are placed on. */
  connection_id: string;
  phone_numbers: string[];
}

export interface TelnyxSimulator {
  /** The API base URL the `telnyx` SDK takes (`…/v2`). */
  apiUrl: string;
  /** Origin of the simulator's control resources (`/_simulator/…`, tests and curl). */
  origin: string;
  /** A new account owning `phoneNumbers`, its application's webhook at the platform's voice URL. */
  createAccount: (phoneNumbers: string[]) => SimulatedTelnyxAccount;
  /** Where the Call Control applications send the events of incoming calls (the platform's voice webhook). */
  setVoiceUrl: (url: string) => void;
  /** Every API request received, in order (tests assert on the requests the SDK made). */
  requests: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  /** Resolves when every call placed so far has ended and reported it. */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

interface Account extends SimulatedTelnyxAccount {
  numbers: Map<string, SimulatedNumber & { id: string }>;
  /** Times calls were created (tests). */
  created: number[];
  /** How calls ended (tests): who hung up, and when the media stream and the call ended. */
  ended: { call_control_id: string; hangup_source: string; stream_ended_at: number | null; hung_up_at: number }[];
}

interface SimulatedCall {
  id: string;
  legId: string;
  sessionId: string;
  account: Account;
  from: string;
  to: string;
  direction: 'incoming' | 'outgoing';
  /** `parked` until an incoming call is answered or rejected. */
  state: 'parked' | 'bridging' | 'active' | 'hangup';
  /** Where this call's events go: the dial's or the answer's `webhook_url`, else the application's. */
  webhookUrl: string | null;
  clientState: string | null;
  stream: { url: string } | null;
  detectMachine: boolean;
  /** `detect_beep` / `premium`: the end of a machine's greeting is reported too. */
  detectBeep: boolean;
  /** Set by `streaming_stop`: the stream ends, the call stays up. */
  streamStop: AbortController;
  /** When the media stream ended; the call itself ends only with a hang-up. */
  streamEndedAt: number | null;
  hangUp: AbortController;
  hangupSource: 'caller' | 'callee';
  answered: (value: 'answered' | 'rejected') => void;
  /** `command_id`s already carried out: Telnyx ignores a command repeated with the same one. */
  commandIds: Set<string>;
}

/** The platform's and the tests' addresses only: the simulator never sends anything off this machine. */
function isLoopback(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
  } catch {
    return false;
  }
}

const E164 = /^\+[1-9]\d{6,14}$/;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** Telnyx's error shape: `{errors: [{code, title, detail}]}`. */
const telnyxError = (response: ServerResponse, status: number, code: string, title: string, detail = title) =>
  reply(response, status, { errors: [{ code, title, detail }] });

/**
 * A local Telnyx: the API v2 the `telnyx` SDK speaks for Call Control and numbers (`POST /calls`,
 * `POST /calls/{id}/actions/{answer,reject,hangup,speak,streaming_stop}`, `GET /phone_numbers`,
 * `GET /available_phone_numbers`, `POST /number_orders`, `DELETE /phone_numbers/{id}`; Bearer API
 * keys, JSON, Telnyx's `{errors}` shape), Call Control webhooks (`call.initiated`, `call.answered`,
 * `call.machine.detection.ended`, `call.machine.greeting.ended`, `call.speak.started` / `ended`,
 * `call.hangup` with its cause) signed with the account's Ed25519
 * key over `<telnyx-timestamp>|<body>` exactly as Telnyx signs them, and media streaming: for an
 * answered call a callee that streams to `stream_url` (`connected`, `start` with `media_format`
 * PCMU 8000, `media`, `stop`; with `stream_bidirectional_mode: rtp` the platform's `media`,
 * `mark` and `clear` come back). The dialed number's last digit decides the outcome as at the
 * local Twilio. Incoming calls are rung through `POST /_simulator/incoming-calls` `{from, to}`
 * (a phone calling an account's number: the application's webhook gets `call.initiated`, the
 * platform answers or rejects by command; `hang_up_first: true` makes the caller give up first,
 * `deliver_twice: true` repeats the webhook as a Telnyx retry does). Accounts are created by `POST /_simulator/accounts`
 * `{phone_numbers}` (the portal) and read back at `GET /_simulator/accounts/{connection_id}`.
 */
export async function startTelnyxSimulator(options: TelnyxSimulatorOptions): Promise<TelnyxSimulator> {
  const ringMs = options.ringMs ?? 300;
  const accounts = new Map<string, Account>();
  const byKey = new Map<string, Account>();
  const calls = new Map<string, SimulatedCall>();
  const inProgress = new CallsInProgress();
  const inventory = availableInventory();
  const requests: TelnyxSimulator['requests'] = [];
  const signingKeys = new Map<Account, KeyObject>();
  let voiceUrl: string | null = null;
  /** What `speak` commands said, for `GET /_simulator/spoken`. */
  const spoken: { call_control_id: string; to: string; text: string; completed: boolean }[] = [];
  /** Transfers (`transfer` commands) and what their destinations heard, for `GET /_simulator/transfers`. */
  const transfers: {
    call_control_id: string;
    to: string;
    status: string;
    whisper_heard: string | null;
    digits_sent: string | null;
    bridged_ms: number;
  }[] = [];

  const createAccount = (phoneNumbers: string[]): SimulatedTelnyxAccount => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const account: Account = {
      api_key: `KEY${randomBytes(16).toString('hex').toUpperCase()}_${randomBytes(8).toString('hex')}`,
      public_key: (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('base64'),
      connection_id: String(BigInt(`0x${randomBytes(7).toString('hex')}`)),
      phone_numbers: [...phoneNumbers],
      numbers: new Map(
        phoneNumbers.map((number) => [
          number,
          { phone_number: number, country_code: '', number_type: 'local', capabilities: ['voice'], id: randomUUID() },
        ]),
      ),
      created: [],
      ended: [],
    };
    signingKeys.set(account, privateKey);
    accounts.set(account.connection_id, account);
    byKey.set(account.api_key, account);
    const { api_key, public_key, connection_id, phone_numbers } = account;
    return { api_key, public_key, connection_id, phone_numbers };
  };

  /** A Call Control webhook as Telnyx sends it: JSON, signed with the account's Ed25519 key. */
  async function sendEvent(call: SimulatedCall, eventType: string, extra: Record<string, unknown> = {}) {
    const url = call.webhookUrl ?? voiceUrl;
    if (!url || !isLoopback(url)) return undefined;
    const body = JSON.stringify({
      data: {
        record_type: 'event',
        id: randomUUID(),
        event_type: eventType,
        occurred_at: new Date().toISOString(),
        payload: {
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
        },
      },
      meta: { attempt: 1, delivered_to: url },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'telnyx-timestamp': timestamp,
          'telnyx-signature-ed25519': sign(
            null,
            Buffer.from(`${timestamp}|${body}`),
            signingKeys.get(call.account)!,
          ).toString('base64'),
        },
        body,
      });
      if (!response.ok && !inProgress.stopping)
        console.error(`Telnyx simulator: ${eventType} webhook answered ${response.status}: ${await response.text()}`);
      return response;
    } catch (error) {
      if (!inProgress.stopping) console.error('Telnyx simulator: webhook failed', error);
      return undefined;
    }
  }

  /** The callee's side of an answered call over Telnyx media streaming. */
  function converse(call: SimulatedCall, machine?: AnsweringMachine): Promise<'stream-closed' | 'ended'> {
    const streamId = randomUUID();
    return talkAsCallee({
      url: call.stream!.url,
      callSeconds: options.callSeconds,
      hangUp: AbortSignal.any([call.hangUp.signal, call.streamStop.signal]),
      sockets: inProgress.sockets,
      machine,
      keys: simulatedKeys(call.to),
      menu: simulatedMenu(call.to),
      script: simulatedScript(call.to),
      wire: {
        connected: () => ({ event: 'connected', version: '1.0.0' }),
        start: () => ({
          event: 'start',
          sequence_number: '1',
          start: {
            user_id: randomUUID(),
            call_control_id: call.id,
            call_session_id: call.sessionId,
            from: call.from,
            to: call.to,
            client_state: call.clientState,
            media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
          },
          stream_id: streamId,
        }),
        media: ({ sequence, chunk, timestampMs, payload }) => ({
          event: 'media',
          sequence_number: String(sequence),
          media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestampMs), payload },
          stream_id: streamId,
        }),
        mark: (name) => ({ event: 'mark', sequence_number: '0', mark: { name }, stream_id: streamId }),
        dtmf: (digit, sequence) => ({
          event: 'dtmf',
          sequence_number: String(sequence),
          dtmf: { digit },
          stream_id: streamId,
        }),
        stop: (sequence) => ({
          event: 'stop',
          sequence_number: String(sequence),
          stop: { user_id: randomUUID(), call_control_id: call.id },
          stream_id: streamId,
        }),
      },
    });
  }

  async function hangUpWith(call: SimulatedCall, cause: string): Promise<void> {
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
   * An answered call: streams until the callee or the platform hangs up. As on Telnyx, the media
   * stream is a side channel of the call: when the platform closes it, the call stays up (billed)
   * until a `hangup` command, or the callee gives up on the dead air.
   */
  async function talk(call: SimulatedCall, machine?: AnsweringMachine): Promise<void> {
    if (call.stream && isLoopback(call.stream.url) && !call.hangUp.signal.aborted) {
      let end: 'stream-closed' | 'ended';
      try {
        end = await converse(call, machine);
      } catch (error) {
        if (!inProgress.stopping) console.error('Telnyx simulator: media stream failed', error);
        return hangUpWith(call, 'unspecified');
      }
      call.streamEndedAt = Date.now();
      if (call.streamStop.signal.aborted) await afterStreamStopped(call);
      else if (end === 'stream-closed') await waitUnlessAborted(DEAD_AIR_PATIENCE_MS, call.hangUp.signal);
    } else {
      await Promise.race([
        sleep(options.callSeconds * 1000),
        new Promise((resolve) => call.hangUp.signal.addEventListener('abort', resolve)),
      ]);
    }
    return hangUpWith(call, 'normal_clearing');
  }

  async function runOutbound(call: SimulatedCall): Promise<void> {
    await sendEvent(call, 'call.initiated');
    await sleep(ringMs);
    if (call.hangUp.signal.aborted) return hangUpWith(call, 'originator_cancel');
    const outcome = simulatedOutcome(call.to);
    if (outcome === 'busy') return hangUpWith(call, 'user_busy');
    if (outcome === 'no-answer') return hangUpWith(call, 'timeout');
    call.state = 'active';
    await sendEvent(call, 'call.answered');
    // The stream starts at once for a person and a machine alike; detection runs alongside.
    const answerer = simulatedAnswerer(call.to);
    const machine = answerer.startsWith('machine_') ? answeringMachine(answerer === 'machine_with_beep') : undefined;
    const callOver = new AbortController();
    const detection = detectAnsweringMachine(call, answerer, machine, callOver.signal);
    await talk(call, machine);
    callOver.abort();
    await detection;
  }

  /**
   * Answering-machine detection as Telnyx reports it to the call's webhook:
   * `call.machine.detection.ended` (`human`, `machine`, or `not_sure` when it times out) a few
   * seconds after the answer, then for a machine with `detect_beep` `call.machine.greeting.ended`
   * once its greeting is over (`beep_detected`, or `ended` for a machine without a beep). Nothing is
   * sent for a call that ended first.
   */
  async function detectAnsweringMachine(
    call: SimulatedCall,
    answerer: SimulatedAnswerer,
    machine: AnsweringMachine | undefined,
    callOver: AbortSignal,
  ): Promise<void> {
    if (!call.detectMachine) return;
    const answeredAt = Date.now();
    const at = async (ms: number) => {
      await waitUnlessAborted(Math.max(0, answeredAt + ms - Date.now()), callOver);
      return call.state === 'active' && !callOver.aborted && !call.hangUp.signal.aborted;
    };
    const result = machine ? 'machine' : answerer === 'unknown' ? 'not_sure' : 'human';
    if (!(await at(result === 'not_sure' ? DETECTION_MS.unknown : DETECTION_MS.verdict))) return;
    await sendEvent(call, 'call.machine.detection.ended', { result });
    if (!machine || !call.detectBeep) return;
    if (!(await at(machine.greetingMs + (machine.beep ? 0 : DETECTION_MS.silenceAfterGreeting)))) return;
    await sendEvent(call, 'call.machine.greeting.ended', { result: machine.beep ? 'beep_detected' : 'ended' });
  }

  /**
   * After `streaming_stop` the call stays up (billed) until someone hangs up: the platform (after
   * its `speak`), or the callee once its time is up.
   */
  async function afterStreamStopped(call: SimulatedCall): Promise<void> {
    if (call.hangUp.signal.aborted) return;
    await waitUnlessAborted(options.callSeconds * 1000, call.hangUp.signal);
  }

  /**
   * `transfer`: a new leg to the destination (by the callee directory, simulatedOutcome), its
   * events tagged with `target_leg_client_state`. Busy or unanswered (`timeout_secs`), it hangs up
   * and the caller's call stays up for the platform. Answered: answering-machine detection when
   * asked (a machine is reported, then hung up by the platform), `audio_url` played to the person
   * (its words decoded, as the person hears them), the legs bridged for TRANSFER_TALK_MS, then both hang up.
   */
  async function transferLeg(call: SimulatedCall, body: Record<string, unknown>): Promise<void> {
    const leg: SimulatedCall = {
      ...call,
      id: `v3:${randomBytes(16).toString('base64url')}`,
      legId: randomUUID(),
      to: String(body.to),
      from: String(body.from ?? call.to),
      direction: 'outgoing',
      state: 'bridging',
      webhookUrl: typeof body.webhook_url === 'string' ? body.webhook_url : call.webhookUrl,
      clientState: typeof body.target_leg_client_state === 'string' ? body.target_leg_client_state : null,
      stream: null,
      detectMachine: body.answering_machine_detection !== undefined && body.answering_machine_detection !== 'disabled',
      detectBeep: false,
      streamStop: new AbortController(),
      streamEndedAt: null,
      hangUp: new AbortController(),
      hangupSource: 'callee',
      commandIds: new Set(),
    };
    calls.set(leg.id, leg);
    const record = {
      call_control_id: call.id,
      to: leg.to,
      status: 'ringing',
      whisper_heard: null as string | null,
      digits_sent: typeof body.send_digits_on_answer === 'string' ? body.send_digits_on_answer : null,
      bridged_ms: 0,
    };
    transfers.push(record);
    await sendEvent(leg, 'call.initiated');
    const outcome = simulatedOutcome(leg.to.replace(/@.*$/, ''));
    if (outcome === 'busy' || outcome === 'no-answer') {
      await waitUnlessAborted(outcome === 'busy' ? ringMs : Number(body.timeout_secs ?? 30) * 1000, call.hangUp.signal);
      record.status = outcome;
      return hangUpWith(leg, outcome === 'busy' ? 'user_busy' : 'timeout');
    }
    await waitUnlessAborted(ringMs, call.hangUp.signal);
    leg.state = 'active';
    await sendEvent(leg, 'call.answered');
    if (outcome === 'voicemail' && leg.detectMachine) {
      await waitUnlessAborted(DETECTION_MS.verdict, leg.hangUp.signal);
      await sendEvent(leg, 'call.machine.detection.ended', { result: 'machine' });
      await waitUnlessAborted(options.callSeconds * 1000, leg.hangUp.signal);
      record.status = 'machine';
      leg.hangupSource = 'caller';
      return hangUpWith(leg, 'normal_clearing');
    }
    if (typeof body.audio_url === 'string' && isLoopback(body.audio_url)) {
      const audio = await fetch(body.audio_url).then(
        (answer) => (answer.ok ? answer.arrayBuffer() : null),
        () => null,
      );
      if (audio) {
        const wav = Buffer.from(audio);
        const header = parseWavHeader(wav);
        const data = wav.subarray(WAV_HEADER_BYTES, WAV_HEADER_BYTES + header.dataBytes);
        const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
        record.whisper_heard = speechText(samples);
        await waitUnlessAborted((samples.length / 8000) * 1000, call.hangUp.signal);
      }
    }
    await sendEvent(call, 'call.bridged');
    await sendEvent(leg, 'call.bridged');
    record.status = 'bridged';
    const bridgedAt = Date.now();
    await waitUnlessAborted(TRANSFER_TALK_MS, call.hangUp.signal);
    record.bridged_ms = Date.now() - bridgedAt;
    // The person hangs up: a bridge ends both legs.
    await hangUpWith(leg, 'normal_clearing');
    call.hangupSource = 'callee';
    call.hangUp.abort();
  }

  /** `speak`: Telnyx's text-to-speech (about 15 characters a second), then `call.speak.ended`. */
  async function speak(call: SimulatedCall, text: string): Promise<void> {
    await sendEvent(call, 'call.speak.started');
    await waitUnlessAborted(text.length * TTS_MS_PER_CHARACTER, call.hangUp.signal);
    const completed = !call.hangUp.signal.aborted;
    spoken.push({ call_control_id: call.id, to: call.to, text, completed });
    if (completed) await sendEvent(call, 'call.speak.ended', { status: 'completed' });
  }

  /**
   * A phone calling one of an account's numbers: `call.initiated` to the application, then the
   * platform's command. `hangUpFirst`: the caller gives up while the webhook is on its way, so the
   * command finds the call over. `deliverTwice`: the webhook is delivered again (Telnyx retries
   * when it got no 2xx in time), so the platform's command comes twice.
   */
  async function ringIncoming(from: string, to: string, hangUpFirst: boolean, deliverTwice: boolean) {
    const account = [...accounts.values()].find((each) => each.numbers.has(to));
    if (!account) return { status: 404, body: { detail: `No Telnyx account owns ${to}` } };
    let answered!: (value: 'answered' | 'rejected') => void;
    const outcome = new Promise<'answered' | 'rejected'>((resolve) => (answered = resolve));
    const call: SimulatedCall = {
      id: `v3:${randomBytes(16).toString('base64url')}`,
      legId: randomUUID(),
      sessionId: randomUUID(),
      account,
      from,
      to,
      direction: 'incoming',
      state: 'parked',
      webhookUrl: null,
      clientState: null,
      stream: null,
      detectMachine: false,
      detectBeep: false,
      streamStop: new AbortController(),
      streamEndedAt: null,
      hangUp: new AbortController(),
      hangupSource: 'caller',
      answered,
      commandIds: new Set(),
    };
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

  function account(request: IncomingMessage): Account | undefined {
    const header = request.headers.authorization ?? '';
    return header.startsWith('Bearer ') ? byKey.get(header.slice(7)) : undefined;
  }

  /** Stream parameters of a dial or an answer command. */
  const streamOf = (body: Record<string, unknown>): SimulatedCall['stream'] =>
    typeof body.stream_url === 'string' ? { url: body.stream_url } : null;

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

    // Control resources: the portal and the outside world, not Telnyx's API.
    if (path === '/_simulator/accounts' && request.method === 'POST') {
      const numbers = Array.isArray(body.phone_numbers) ? body.phone_numbers.map(String) : [];
      return reply(response, 201, createAccount(numbers));
    }
    const stats = /^\/_simulator\/accounts\/(\d+)$/.exec(path);
    if (stats) {
      const found = accounts.get(stats[1]!);
      return found
        ? reply(response, 200, { calls_created_at: found.created, calls_ended: found.ended })
        : reply(response, 404, { detail: 'Not Found' });
    }
    if (path === '/_simulator/spoken' && request.method === 'GET') return reply(response, 200, spoken);
    if (path === '/_simulator/transfers' && request.method === 'GET') return reply(response, 200, transfers);
    if (path === '/_simulator/incoming-calls' && request.method === 'POST') {
      const rung = await ringIncoming(
        String(body.from ?? ''),
        String(body.to ?? ''),
        body.hang_up_first === true,
        body.deliver_twice === true,
      );
      return reply(response, rung.status, rung.body);
    }

    requests.push({
      method: request.method ?? '',
      path: decodeURIComponent(`${path}${url.search}`),
      authorization: request.headers.authorization,
      body: text ? body : undefined,
    });
    const user = account(request);
    if (!user) return telnyxError(response, 401, '10009', 'Authentication failed', 'Could not understand the API key');

    if (path === '/v2/calls' && request.method === 'POST') {
      const to = String(body.to ?? '');
      const from = String(body.from ?? '');
      if (body.connection_id !== user.connection_id)
        return telnyxError(response, 422, '10015', 'Invalid value for connection_id');
      if (!E164.test(to)) return telnyxError(response, 422, '10016', 'Invalid value for to');
      if (!user.numbers.has(from))
        return telnyxError(response, 422, '10016', 'Invalid value for from', 'The number is not on your account');
      user.created.push(Date.now());
      const call: SimulatedCall = {
        id: `v3:${randomBytes(16).toString('base64url')}`,
        legId: randomUUID(),
        sessionId: randomUUID(),
        account: user,
        from,
        to,
        direction: 'outgoing',
        state: 'bridging',
        webhookUrl: typeof body.webhook_url === 'string' ? body.webhook_url : null,
        clientState: typeof body.client_state === 'string' ? body.client_state : null,
        stream: streamOf(body),
        detectMachine: ['detect', 'detect_beep', 'detect_words', 'greeting_end', 'premium'].includes(
          String(body.answering_machine_detection),
        ),
        detectBeep: ['detect_beep', 'premium'].includes(String(body.answering_machine_detection)),
        streamStop: new AbortController(),
        streamEndedAt: null,
        hangUp: new AbortController(),
        hangupSource: 'callee',
        answered: () => {},
        commandIds: new Set(),
      };
      calls.set(call.id, call);
      inProgress.track(call.hangUp, runOutbound(call));
      return reply(response, 200, {
        data: {
          call_control_id: call.id,
          call_leg_id: call.legId,
          call_session_id: call.sessionId,
          is_alive: false,
          record_type: 'call',
        },
      });
    }
    const action =
      /^\/v2\/calls\/([^/]+)\/actions\/(answer|reject|hangup|speak|streaming_stop|streaming_start|transfer)$/.exec(
        path,
      );
    if (action && request.method === 'POST') {
      const call = calls.get(action[1]!);
      if (!call || call.account !== user) return telnyxError(response, 404, '10005', 'Resource not found');
      const commandId = typeof body.command_id === 'string' ? body.command_id : undefined;
      if (commandId && call.commandIds.has(commandId)) return reply(response, 200, { data: { result: 'ok' } });
      if (commandId) call.commandIds.add(commandId);
      if (call.state === 'hangup') return telnyxError(response, 422, '90018', 'Call has already ended');
      const verb = action[2];
      if (verb === 'streaming_start') {
        // A call without a stream (stopped before a transfer) streams again: the callee talks on.
        if (call.state !== 'active') return telnyxError(response, 422, '90018', 'Call is not active');
        call.stream = streamOf(body);
        call.streamStop = new AbortController();
        inProgress.track(
          new AbortController(),
          converse(call).then(
            () => undefined,
            (error: unknown) => {
              if (!inProgress.stopping) console.error('Telnyx simulator: media stream failed', error);
            },
          ),
        );
        return reply(response, 200, { data: { result: 'ok' } });
      }
      if (verb === 'transfer') {
        if (call.state !== 'active') return telnyxError(response, 422, '90018', 'Call is not active');
        const to = String(body.to ?? '');
        if (!E164.test(to) && !/^sips?:/.test(to)) return telnyxError(response, 422, '10016', 'Invalid value for to');
        inProgress.track(new AbortController(), transferLeg(call, body));
        return reply(response, 200, { data: { result: 'ok' } });
      }
      if (verb === 'speak' || verb === 'streaming_stop') {
        if (call.state !== 'active') return telnyxError(response, 422, '90018', 'Call is not active');
        if (verb === 'streaming_stop') call.streamStop.abort();
        else if (typeof body.payload !== 'string' || typeof body.voice !== 'string')
          return telnyxError(response, 422, '10015', 'Invalid speak command', 'payload and voice are required');
        else inProgress.track(new AbortController(), speak(call, body.payload));
        return reply(response, 200, { data: { result: 'ok' } });
      }
      if (verb === 'hangup') {
        call.hangupSource = 'caller';
        call.hangUp.abort();
      } else if (call.state !== 'parked') {
        return telnyxError(response, 422, '90061', 'Call is not in a parked state');
      } else if (verb === 'answer') {
        call.state = 'active';
        if (typeof body.webhook_url === 'string') call.webhookUrl = body.webhook_url;
        if (typeof body.client_state === 'string') call.clientState = body.client_state;
        call.stream = streamOf(body);
        call.answered('answered');
        inProgress.track(
          call.hangUp,
          (async () => {
            await sendEvent(call, 'call.answered');
            await talk(call);
          })(),
        );
      } else {
        const cause = body.cause === 'USER_BUSY' ? 'user_busy' : 'call_rejected';
        call.answered('rejected');
        inProgress.track(call.hangUp, hangUpWith(call, cause));
      }
      return reply(response, 200, { data: { result: 'ok' } });
    }
    if (path === '/v2/phone_numbers' && request.method === 'GET') {
      const wanted = url.searchParams.get('filter[phone_number]');
      const owned = [...user.numbers.values()].filter((number) => !wanted || number.phone_number === wanted);
      return reply(response, 200, {
        data: owned.map((number) => ({
          id: number.id,
          record_type: 'phone_number',
          phone_number: number.phone_number,
          status: 'active',
          connection_id: user.connection_id,
        })),
        meta: { total_results: owned.length, page_number: 1, page_size: 20, total_pages: 1 },
      });
    }
    const release = /^\/v2\/phone_numbers\/([^/]+)$/.exec(path);
    if (release && request.method === 'DELETE') {
      const owned = [...user.numbers.values()].find((number) => number.id === release[1]);
      if (!owned) return telnyxError(response, 404, '10005', 'Resource not found');
      user.numbers.delete(owned.phone_number);
      return reply(response, 200, { data: { id: owned.id, phone_number: owned.phone_number, status: 'deleted' } });
    }
    if (path === '/v2/available_phone_numbers' && request.method === 'GET') {
      const country = url.searchParams.get('filter[country_code]');
      const type = url.searchParams.get('filter[phone_number_type]');
      const found = [...inventory.values()].filter(
        (number) => number.country_code === country && (!type || number.number_type === type),
      );
      return reply(response, 200, {
        data: found.map((number) => ({
          record_type: 'available_phone_number',
          phone_number: number.phone_number,
          features: [{ name: 'voice' }],
        })),
        metadata: { total_results: found.length },
      });
    }
    if (path === '/v2/number_orders' && request.method === 'POST') {
      const wanted = Array.isArray(body.phone_numbers) ? (body.phone_numbers as { phone_number?: string }[]) : [];
      const offered = wanted.map((each) => inventory.get(String(each.phone_number)));
      if (!offered.length || offered.some((number) => !number))
        return telnyxError(response, 422, '10015', 'Number not available');
      const ordered = offered.map((number) => {
        inventory.delete(number!.phone_number);
        const owned = { ...number!, id: randomUUID() };
        user.numbers.set(owned.phone_number, owned);
        return { id: owned.id, phone_number: owned.phone_number, status: 'success' };
      });
      return reply(response, 200, {
        data: { id: randomUUID(), record_type: 'number_order', status: 'success', phone_numbers: ordered },
      });
    }
    return telnyxError(response, 404, '10005', 'Resource not found');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('Telnyx simulator:', error);
      if (!response.headersSent) telnyxError(response, 500, '10007', 'Unexpected error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${origin}/v2`,
    origin,
    createAccount,
    setVoiceUrl: (url) => {
      voiceUrl = url;
    },
    requests,
    idle: () => inProgress.idle(),
    stop: () => inProgress.stop(server),
  };
}
