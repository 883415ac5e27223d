import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import twilio from 'twilio';
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
  type AnsweringMachine,
  type SimulatedAnswerer,
} from './simulated-callee.ts';

const API_VERSION = '2010-04-01';

export interface TelephonySimulatorOptions {
  /** The platform's Twilio account (more can be created through the Accounts resource). */
  account: { sid: string; authToken: string };
  /** Numbers the platform account owns from the start (its caller id). */
  ownedNumbers?: string[];
  /** How long an answered call lasts before the callee hangs up. */
  callSeconds: number;
  /** Ringing before an outcome. */
  ringMs?: number;
  /** Outbound calls per second each account may create (Twilio's CPS); more answer 429. */
  callsPerSecond: number;
}

export interface TelephonySimulator {
  /** Origin of the Twilio-compatible REST API (the SDK's API origin). */
  apiUrl: string;
  /** Where incoming calls to the platform's numbers are announced (the numbers' VoiceUrl). */
  setVoiceUrl: (url: string) => void;
  /** Resolves when every call placed so far has ended and reported its status (tests). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

interface Account {
  sid: string;
  authToken: string;
  callsPerSecond: number;
  /** Token bucket of the account's call creation rate (capacity: one second's calls). */
  tokens: number;
  refilledAt: number;
  numbers: Map<string, SimulatedNumber & { sid: string; voiceUrl: string | null }>;
  created: number[];
  rateLimited: number;
}

interface SimulatedCall {
  sid: string;
  account: Account;
  to: string;
  from: string;
  direction: 'outbound-api' | 'inbound';
  status: 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';
  statusCallback: string | null;
  events: Set<string>;
  /** Asynchronous answering-machine detection: its mode and where its result goes (`AsyncAmdStatusCallback`). */
  asyncAmd: { mode: 'Enable' | 'DetectMessageEnd'; callback: string } | null;
  stream: { url: string; parameters: Record<string, string> } | null;
  /** Set when new TwiML replaces the call's (a Calls update): the stream ends, the new TwiML plays. */
  redirect: AbortController;
  /** The TwiML that replaced the call's, once it did: what it says before the call ends. */
  replacedBy: ReturnType<typeof readTwiml> | null;
  answeredAt: number | null;
  sequence: number;
  /** Set when the call must end now (hang-up through the REST API). */
  hangUp: AbortController;
}

/**
 * Outcome of a dialed number, decided by its last digit: 0-6 answered, 7 busy, 8 no answer,
 * 9 answered by an answering machine (which kind: simulatedAnswerer).
 */
export function simulatedOutcome(number: string): 'answered' | 'busy' | 'no-answer' | 'voicemail' {
  const digit = Number(number.at(-1));
  if (digit === 7) return 'busy';
  if (digit === 8) return 'no-answer';
  if (digit === 9) return 'voicemail';
  return 'answered';
}

/** `MachineDetection` with `AsyncAmd=true` (the only detection the local Twilio runs: the platform's). */
function asyncAmdOf(form: URLSearchParams): SimulatedCall['asyncAmd'] {
  const mode = form.get('MachineDetection');
  const callback = form.get('AsyncAmdStatusCallback');
  if ((mode !== 'Enable' && mode !== 'DetectMessageEnd') || form.get('AsyncAmd') !== 'true' || !callback) return null;
  return { mode, callback };
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

const unescapeXml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([A-Za-z]+)="([^"]*)"/g)) found[match[1]!] = unescapeXml(match[2]!);
  return found;
}

/** A `<Dial>` of one `<Number>` or `<Sip>` (a transfer), with what Twilio reads of it. */
export interface TwimlDial {
  to: string;
  callerId: string | null;
  timeoutSeconds: number;
  action: string | null;
  /** `<Number url>` / `<Sip url>`: TwiML for the person answering before the bridge (a whisper). */
  whisperUrl: string | null;
  machineDetection: boolean;
  sendDigits: string | null;
}

/** What a TwiML document asks for: a `<Connect><Stream>`, a `<Dial>`, or words and a hang-up / rejection. */
export function readTwiml(twiml: string): {
  stream: { url: string; parameters: Record<string, string> } | null;
  say: string[];
  reject: boolean;
  hangup: boolean;
  dial: TwimlDial | null;
} {
  const streamTag = /<Stream\b[^>]*>/.exec(twiml)?.[0];
  const parameters: Record<string, string> = {};
  for (const match of twiml.matchAll(/<Parameter\b[^>]*\/?>/g)) {
    const { name, value } = attributes(match[0]);
    if (name) parameters[name] = value ?? '';
  }
  const say = [...twiml.matchAll(/<Say\b[^>]*>([^<]*)<\/Say>/g)].map((match) => unescapeXml(match[1]!));
  const dialTag = /<Dial\b[^>]*>/.exec(twiml)?.[0];
  const noun = /<(Number|Sip)\b([^>]*)>([^<]*)<\/(?:Number|Sip)>/.exec(twiml);
  const dialed = dialTag ? attributes(dialTag) : {};
  const nounAttributes = noun ? attributes(noun[2]!) : {};
  return {
    stream: streamTag ? { url: attributes(streamTag).url ?? '', parameters } : null,
    say,
    reject: /<Reject\b/.test(twiml),
    hangup: /<Hangup\b/.test(twiml),
    dial:
      dialTag && noun
        ? {
            to: unescapeXml(noun[3]!.trim()),
            callerId: dialed.callerId ?? null,
            timeoutSeconds: Number(dialed.timeout ?? 30),
            action: dialed.action ?? null,
            whisperUrl: nounAttributes.url ?? null,
            machineDetection: nounAttributes.machineDetection === 'Enable',
            sendDigits: nounAttributes.sendDigits ?? null,
          }
        : null,
  };
}

function twilioError(response: ServerResponse, status: number, code: number, message: string): void {
  response
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A local Twilio: the Programmable Voice REST API the `twilio` SDK speaks (Accounts, Calls,
 * AvailablePhoneNumbers, IncomingPhoneNumbers, regulatory Bundles and EndUsers; form-encoded, HTTP Basic auth, JSON answers and
 * Twilio's error shape, 429 above the account's calls per second), status callbacks signed with
 * X-Twilio-Signature exactly as Twilio computes it, answering-machine detection, and Media
 * Streams: for answered calls a callee that streams its voice to the TwiML's `<Stream>` (real-time
 * 20 ms mu-law frames: connected, start with customParameters, media, mark echoes, clear, stop)
 * and answers each agent turn with the next line of a fixed script, then hangs up after
 * `callSeconds` (or when the agent does). Incoming calls are rung through the test control
 * resource `POST /_simulator/incoming-calls` (a phone calling a platform number), which calls the
 * number's VoiceUrl like Twilio.
 */
export async function startTelephonySimulator(options: TelephonySimulatorOptions): Promise<TelephonySimulator> {
  const ringMs = options.ringMs ?? 300;
  const accounts = new Map<string, Account>();
  const calls = new Map<string, SimulatedCall>();
  const inProgress = new CallsInProgress();
  const inventory = availableInventory();
  const bundles = new Map<
    string,
    { sid: string; account_sid: string; status: string; friendly_name: string | null; email: string | null }
  >();
  let voiceUrl: string | null = null;
  /** What calls said through replaced TwiML (a voicemail message), for `GET /_simulator/spoken`. */
  const spoken: { callSid: string; to: string; text: string; completed: boolean }[] = [];
  /** Calls dialed on from a live call (`<Dial>`: transfers), for `GET /_simulator/transfers`. */
  const transfers: {
    callSid: string;
    to: string;
    caller_id: string | null;
    status: string;
    whisper_heard: string | null;
    digits_sent: string | null;
    bridged_ms: number;
  }[] = [];

  const addAccount = (accountSid: string, authToken: string): Account => {
    const account: Account = {
      sid: accountSid,
      authToken,
      callsPerSecond: options.callsPerSecond,
      tokens: Math.max(1, options.callsPerSecond),
      refilledAt: Date.now(),
      numbers: new Map(),
      created: [],
      rateLimited: 0,
    };
    accounts.set(accountSid, account);
    return account;
  };
  const platform = addAccount(options.account.sid, options.account.authToken);
  for (const number of options.ownedNumbers ?? []) {
    platform.numbers.set(number, {
      phone_number: number,
      country_code: 'US',
      number_type: 'local',
      capabilities: ['voice'],
      sid: sid('PN'),
      voiceUrl: null,
    });
  }

  const callResource = (call: SimulatedCall) => ({
    sid: call.sid,
    account_sid: call.account.sid,
    to: call.to,
    from: call.from,
    status: call.status,
    direction: call.direction,
    api_version: API_VERSION,
    date_created: new Date().toUTCString(),
    uri: `/${API_VERSION}/Accounts/${call.account.sid}/Calls/${call.sid}.json`,
  });

  /** A webhook request as Twilio sends it: form-encoded, signed with the account's auth token. */
  async function signedPost(
    account: Account,
    url: string,
    params: Record<string, string>,
  ): Promise<Response | undefined> {
    const send = () =>
      fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Twilio-Signature': twilio.getExpectedTwilioSignature(account.authToken, url, params),
        },
        body: new URLSearchParams(params).toString(),
      });
    try {
      // A request that got no answer at all (a reset connection: a kept-alive socket the local
      // gateway was closing, which happens under load) is sent once more, as Twilio retries a
      // failed connection when a webhook URL asks for it (connection overrides, `rc`): a lost
      // final status would leave the run waiting for its watchdog.
      return await send().catch(send);
    } catch (error) {
      if (!inProgress.stopping) console.error('Telephony simulator: webhook failed', error);
      return undefined;
    }
  }

  async function report(
    call: SimulatedCall,
    event: 'ringing' | 'answered' | 'completed',
    extra: Record<string, string> = {},
  ): Promise<void> {
    // Twilio always reports the final status; the others only when subscribed.
    if (!call.statusCallback || (event !== 'completed' && !call.events.has(event))) return;
    call.sequence += 1;
    const response = await signedPost(call.account, call.statusCallback, {
      AccountSid: call.account.sid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: call.status,
      Called: call.to,
      Caller: call.from,
      CallbackSource: 'call-progress-events',
      Direction: call.direction,
      From: call.from,
      To: call.to,
      SequenceNumber: String(call.sequence),
      Timestamp: new Date().toUTCString(),
      ...extra,
    });
    if (response && !response.ok)
      console.error(`Telephony simulator: status callback answered ${response.status}: ${await response.text()}`);
  }

  /**
   * The callee's side of an answered call, over Media Streams. As on Twilio, the call's TwiML is
   * `<Connect><Stream>` alone, so when the platform closes the stream the call goes on to the next
   * verb: there is none (or what replaced it, playReplacedTwiml), and the call ends.
   */
  function converse(call: SimulatedCall, machine?: AnsweringMachine): Promise<'stream-closed' | 'ended'> {
    const stream = call.stream!;
    const streamSid = sid('MZ');
    return talkAsCallee({
      url: stream.url,
      callSeconds: options.callSeconds,
      // The stream ends with the call, or when new TwiML replaces the `<Connect><Stream>`.
      hangUp: AbortSignal.any([call.hangUp.signal, call.redirect.signal]),
      sockets: inProgress.sockets,
      machine,
      keys: simulatedKeys(call.to),
      menu: simulatedMenu(call.to),
      script: simulatedScript(call.to),
      wire: {
        connected: () => ({ event: 'connected', protocol: 'Call', version: '1.0.0' }),
        start: () => ({
          event: 'start',
          sequenceNumber: '1',
          streamSid,
          start: {
            accountSid: call.account.sid,
            streamSid,
            callSid: call.sid,
            tracks: ['inbound'],
            customParameters: stream.parameters,
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
        }),
        media: ({ sequence, chunk, timestampMs, payload }) => ({
          event: 'media',
          sequenceNumber: String(sequence),
          streamSid,
          media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestampMs), payload },
        }),
        mark: (name) => ({ event: 'mark', streamSid, sequenceNumber: '0', mark: { name } }),
        dtmf: (digit, sequence) => ({
          event: 'dtmf',
          streamSid,
          sequenceNumber: String(sequence),
          dtmf: { track: 'inbound_track', digit },
        }),
        stop: (sequence) => ({
          event: 'stop',
          sequenceNumber: String(sequence),
          streamSid,
          stop: { accountSid: call.account.sid, callSid: call.sid },
        }),
      },
    });
  }

  /**
   * Asynchronous AMD as Twilio reports it to `AsyncAmdStatusCallback` (AccountSid, CallSid,
   * AnsweredBy, MachineDetectionDuration): `human` or `machine_start` a few seconds after the
   * answer (`Enable`, and DetectMessageEnd's person), `machine_end_beep` / `machine_end_silence`
   * once the greeting is over (DetectMessageEnd), `unknown` when detection times out. Nothing is
   * sent for a call that ended first.
   */
  async function detectAnsweringMachine(
    call: SimulatedCall,
    answerer: SimulatedAnswerer,
    machine: AnsweringMachine | undefined,
    callOver: AbortSignal,
  ): Promise<void> {
    const amd = call.asyncAmd;
    if (!amd) return;
    let answeredBy = answerer === 'human' ? 'human' : 'unknown';
    let afterMs: number = answerer === 'unknown' ? DETECTION_MS.unknown : DETECTION_MS.verdict;
    if (machine && amd.mode === 'Enable') answeredBy = 'machine_start';
    else if (machine) {
      answeredBy = machine.beep ? 'machine_end_beep' : 'machine_end_silence';
      afterMs = machine.greetingMs + (machine.beep ? 0 : DETECTION_MS.silenceAfterGreeting);
    }
    await waitUnlessAborted(afterMs, callOver);
    if (callOver.aborted || call.hangUp.signal.aborted || call.status !== 'in-progress') return;
    const response = await signedPost(call.account, amd.callback, {
      AccountSid: call.account.sid,
      CallSid: call.sid,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: String(afterMs),
    });
    if (response && !response.ok)
      console.error(`Telephony simulator: AMD callback answered ${response.status}: ${await response.text()}`);
  }

  /** New TwiML for a live call (Calls update): the stream ends, and what it says plays. */
  function replaceTwiml(call: SimulatedCall, twiml: string): void {
    call.replacedBy = readTwiml(twiml);
    call.redirect.abort();
  }

  /**
   * What replaced TwiML does: words at Twilio's text-to-speech pace (about 15 characters a
   * second), or a `<Dial>` (dialAway); then the call ends.
   */
  async function playReplacedTwiml(call: SimulatedCall, twiml = call.replacedBy): Promise<void> {
    if (twiml?.dial && !call.hangUp.signal.aborted) return dialAway(call, twiml.dial);
    const said = twiml?.say.join(' ') ?? '';
    if (!said || call.hangUp.signal.aborted) return;
    await waitUnlessAborted(said.length * TTS_MS_PER_CHARACTER, call.hangUp.signal);
    spoken.push({ callSid: call.sid, to: call.to, text: said, completed: !call.hangUp.signal.aborted });
  }

  /**
   * A `<Dial>` from a live call (a transfer), as Twilio runs it: the destination (by the callee
   * directory, simulatedOutcome) rings for up to `timeout`; answered, its whisper URL is asked for
   * TwiML (signed, with `AnsweredBy` when `machineDetection` is on) and the person hears its
   * `<Say>` (a `<Hangup>` there drops the destination); the caller and the person then talk for
   * TRANSFER_TALK_MS. The `action` URL gets DialCallStatus and DialCallDuration, and its TwiML
   * plays to the caller before the call ends.
   */
  async function dialAway(call: SimulatedCall, dial: TwimlDial): Promise<void> {
    const legSid = sid('CA');
    const outcome = simulatedOutcome(dial.to);
    const record = {
      callSid: call.sid,
      to: dial.to,
      caller_id: dial.callerId,
      status: 'ringing',
      whisper_heard: null as string | null,
      digits_sent: null as string | null,
      bridged_ms: 0,
    };
    transfers.push(record);
    let status: string;
    let seconds = 0;
    if (outcome === 'busy') {
      await waitUnlessAborted(ringMs, call.hangUp.signal);
      status = 'busy';
    } else if (outcome === 'no-answer') {
      await waitUnlessAborted(dial.timeoutSeconds * 1000, call.hangUp.signal);
      status = 'no-answer';
    } else {
      await waitUnlessAborted(ringMs, call.hangUp.signal);
      let connected = true;
      if (dial.whisperUrl) {
        const answeredBy = outcome === 'voicemail' ? 'machine_start' : 'human';
        const whisper = await signedPost(call.account, dial.whisperUrl, {
          AccountSid: call.account.sid,
          CallSid: legSid,
          ParentCallSid: call.sid,
          To: dial.to,
          From: dial.callerId ?? call.from,
          ...(dial.machineDetection ? { AnsweredBy: answeredBy } : {}),
        });
        const heard = whisper?.ok ? readTwiml(await whisper.text()) : null;
        record.whisper_heard = heard?.say.join(' ') || null;
        if (record.whisper_heard)
          await waitUnlessAborted(record.whisper_heard.length * TTS_MS_PER_CHARACTER, call.hangUp.signal);
        // A `<Hangup>` in the whisper drops the destination (a machine): nobody is bridged.
        connected = Boolean(heard && !heard.hangup);
      }
      record.digits_sent = dial.sendDigits;
      if (connected && !call.hangUp.signal.aborted) {
        const bridgedAt = Date.now();
        await waitUnlessAborted(TRANSFER_TALK_MS, call.hangUp.signal);
        record.bridged_ms = Date.now() - bridgedAt;
        seconds = Math.max(1, Math.round(record.bridged_ms / 1000));
      }
      status = 'completed';
    }
    record.status = status;
    if (!dial.action) return;
    const next = await signedPost(call.account, dial.action, {
      AccountSid: call.account.sid,
      CallSid: call.sid,
      DialCallSid: legSid,
      DialCallStatus: status,
      DialCallDuration: String(seconds),
      To: call.to,
      From: call.from,
    });
    if (!next?.ok) return;
    const twiml = readTwiml(await next.text());
    if (twiml.stream && !call.hangUp.signal.aborted) {
      // `<Connect><Stream>`: the caller is connected to the platform's media again.
      call.stream = twiml.stream;
      call.redirect = new AbortController();
      call.replacedBy = null;
      await converse(call).catch(
        (error: unknown) => !inProgress.stopping && console.error('Telephony simulator: media stream failed', error),
      );
      await playReplacedTwiml(call);
    } else if (!twiml.dial) await playReplacedTwiml(call, twiml);
  }

  async function runCall(call: SimulatedCall): Promise<void> {
    const hungUp = () => call.hangUp.signal.aborted;
    if (call.direction === 'outbound-api') {
      call.status = 'ringing';
      await report(call, 'ringing');
      await sleep(ringMs);
      if (hungUp()) {
        call.status = 'canceled';
        return report(call, 'completed');
      }
      const outcome = simulatedOutcome(call.to);
      if (outcome === 'busy' || outcome === 'no-answer') {
        call.status = outcome;
        return report(call, 'completed');
      }
      call.status = 'in-progress';
      call.answeredAt = Date.now();
      await report(call, 'answered');
      // The stream starts at once for a person and a machine alike; detection runs alongside.
      const answerer = simulatedAnswerer(call.to);
      const machine = answerer.startsWith('machine_') ? answeringMachine(answerer === 'machine_with_beep') : undefined;
      const callOver = new AbortController();
      const detection = detectAnsweringMachine(call, answerer, machine, callOver.signal);
      if (call.stream && !hungUp()) {
        try {
          await converse(call, machine);
        } catch (error) {
          if (!inProgress.stopping) console.error('Telephony simulator: media stream failed', error);
          call.status = 'failed';
          return report(call, 'completed');
        }
      }
      await playReplacedTwiml(call);
      call.status = 'completed';
      callOver.abort();
      await detection;
      const duration = String(Math.round((Date.now() - call.answeredAt) / 1000));
      return report(call, 'completed', { CallDuration: duration });
    }
    // Incoming: connected at once to what the platform's TwiML said.
    call.status = 'in-progress';
    call.answeredAt = Date.now();
    if (call.stream)
      await converse(call).catch(
        (error: unknown) => !inProgress.stopping && console.error('Telephony simulator: media stream failed', error),
      );
    call.status = 'completed';
  }

  function track(call: SimulatedCall): void {
    calls.set(call.sid, call);
    inProgress.track(call.hangUp, runCall(call));
  }

  /** HTTP Basic auth with an Account SID and its auth token. */
  function accountOf(request: IncomingMessage): Account | undefined {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return undefined;
    const [user, password] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const account = accounts.get(user ?? '');
    return account && account.authToken === password ? account : undefined;
  }

  const authenticate = (request: IncomingMessage, accountSid: string): Account | undefined => {
    const account = accountOf(request);
    return account?.sid === accountSid ? account : undefined;
  };

  async function createCall(account: Account, form: URLSearchParams, response: ServerResponse): Promise<void> {
    // Calls per second: a bucket of one second's calls, refilled continuously.
    const now = Date.now();
    const capacity = Math.max(1, account.callsPerSecond);
    account.tokens = Math.min(capacity, account.tokens + ((now - account.refilledAt) / 1000) * account.callsPerSecond);
    account.refilledAt = now;
    if (account.tokens < 1) {
      account.rateLimited += 1;
      return twilioError(response, 429, 20429, 'Too Many Requests');
    }
    account.tokens -= 1;
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return twilioError(response, 400, 21211, `Invalid 'To' Phone Number: ${to}`);
    if (!/^\+[1-9]\d{6,14}$/.test(from))
      return twilioError(response, 400, 21212, `Invalid 'From' Phone Number: ${from}`);
    const twiml = form.get('Twiml');
    if (!twiml && !form.get('Url')) return twilioError(response, 400, 21205, 'Url or Twiml parameter is required');
    account.created.push(now);
    const call: SimulatedCall = {
      sid: sid('CA'),
      account,
      to,
      from,
      direction: 'outbound-api',
      status: 'queued',
      statusCallback: form.get('StatusCallback'),
      events: new Set(form.getAll('StatusCallbackEvent').flatMap((event) => event.split(' '))),
      asyncAmd: asyncAmdOf(form),
      stream: twiml ? readTwiml(twiml).stream : null,
      redirect: new AbortController(),
      replacedBy: null,
      answeredAt: null,
      sequence: 0,
      hangUp: new AbortController(),
    };
    track(call);
    json(response, 201, callResource(call));
  }

  async function ringIncoming(
    from: string,
    to: string,
  ): Promise<{ call_sid: string; answer: 'connected' | 'rejected'; say: string[] }> {
    const owner = [...accounts.values()].find((account) => account.numbers.has(to));
    const number = owner?.numbers.get(to);
    const url = number?.voiceUrl ?? voiceUrl;
    const account = owner ?? platform;
    if (!url) throw new Error('No VoiceUrl for incoming calls');
    const call: SimulatedCall = {
      sid: sid('CA'),
      account,
      to,
      from,
      direction: 'inbound',
      status: 'ringing',
      statusCallback: null,
      events: new Set(),
      asyncAmd: null,
      stream: null,
      redirect: new AbortController(),
      replacedBy: null,
      answeredAt: null,
      sequence: 0,
      hangUp: new AbortController(),
    };
    const reply = await signedPost(account, url, {
      AccountSid: account.sid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: 'ringing',
      Called: to,
      Caller: from,
      Direction: 'inbound',
      From: from,
      To: to,
    });
    if (!reply?.ok) throw new Error(`Voice webhook answered ${reply?.status}`);
    const twiml = readTwiml(await reply.text());
    call.stream = twiml.stream;
    if (call.stream) track(call);
    return { call_sid: call.sid, answer: call.stream ? 'connected' : 'rejected', say: twiml.say };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const form = new URLSearchParams(await readBody(request));
    const path = url.pathname;

    // Test control: the outside world, not Twilio's API.
    if (path === '/_simulator/spoken' && request.method === 'GET') return json(response, 200, spoken);
    if (path === '/_simulator/transfers' && request.method === 'GET') return json(response, 200, transfers);
    if (path === '/_simulator/incoming-calls' && request.method === 'POST') {
      return json(response, 200, await ringIncoming(form.get('From') ?? '', form.get('To') ?? ''));
    }
    const limits = /^\/_simulator\/accounts\/(AC\w+)$/.exec(path);
    if (limits) {
      const account = accounts.get(limits[1]!);
      if (!account) return twilioError(response, 404, 20404, 'Not found');
      if (request.method === 'POST' && form.get('CallsPerSecond')) {
        account.callsPerSecond = Number(form.get('CallsPerSecond'));
        account.tokens = Math.min(account.tokens, Math.max(1, account.callsPerSecond));
      }
      return json(response, 200, {
        calls_per_second: account.callsPerSecond,
        calls_created_at: account.created,
        rate_limited: account.rateLimited,
      });
    }

    const compliance = /^\/v2\/RegulatoryCompliance\/(Bundles|EndUsers)(?:\/(BU\w+))?(\/ItemAssignments)?$/.exec(path);
    if (compliance && request.method === 'POST') {
      const user = accountOf(request);
      if (!user) return twilioError(response, 401, 20003, 'Authenticate');
      const [, collection, bundleSid, assignments] = compliance;
      if (collection === 'EndUsers')
        return json(response, 201, {
          sid: sid('IT'),
          account_sid: user.sid,
          friendly_name: form.get('FriendlyName'),
          type: form.get('Type'),
        });
      if (!bundleSid) {
        if (!form.get('Email') || !form.get('FriendlyName'))
          return twilioError(response, 400, 22204, 'Email and FriendlyName are required');
        const bundle = {
          sid: sid('BU'),
          account_sid: user.sid,
          status: 'draft',
          friendly_name: form.get('FriendlyName'),
          email: form.get('Email'),
        };
        bundles.set(bundle.sid, bundle);
        return json(response, 201, bundle);
      }
      const bundle = bundles.get(bundleSid);
      if (!bundle || bundle.account_sid !== user.sid) return twilioError(response, 404, 20404, 'Not found');
      if (assignments)
        return json(response, 201, { sid: sid('BV'), bundle_sid: bundleSid, object_sid: form.get('ObjectSid') });
      // The local Twilio's reviewers approve every bundle they are sent; the platform's own review (operator CLI) decides.
      if (form.get('Status') === 'pending-review') bundle.status = 'twilio-approved';
      return json(response, 200, bundle);
    }

    if (path === `/${API_VERSION}/Accounts.json` && request.method === 'POST') {
      if (!authenticate(request, platform.sid)) return twilioError(response, 401, 20003, 'Authenticate');
      const account = addAccount(sid('AC'), randomBytes(16).toString('hex'));
      return json(response, 201, {
        sid: account.sid,
        auth_token: account.authToken,
        friendly_name: form.get('FriendlyName') ?? account.sid,
        status: 'active',
        owner_account_sid: platform.sid,
      });
    }
    const match = /^\/2010-04-01\/Accounts\/(AC\w+)\/(.+)$/.exec(path);
    if (!match) return twilioError(response, 404, 20404, 'The requested resource was not found');
    const account = authenticate(request, match[1]!);
    if (!account) return twilioError(response, 401, 20003, 'Authenticate');
    const resource = match[2]!;

    if (resource === 'Calls.json' && request.method === 'POST') return createCall(account, form, response);
    const callMatch = /^Calls\/(CA\w+)\.json$/.exec(resource);
    if (callMatch) {
      const call = calls.get(callMatch[1]!);
      if (!call || call.account !== account)
        return twilioError(
          response,
          404,
          20404,
          `The requested resource /${API_VERSION}/Accounts/${account.sid}/Calls/${callMatch[1]}.json was not found`,
        );
      if (request.method === 'POST' && ['completed', 'canceled'].includes(form.get('Status') ?? ''))
        call.hangUp.abort();
      else if (request.method === 'POST' && form.get('Twiml')) {
        if (call.status !== 'in-progress')
          return twilioError(response, 400, 21220, 'Call is not in-progress. Cannot redirect.');
        replaceTwiml(call, form.get('Twiml')!);
      }
      return json(response, 200, callResource(call));
    }
    const available = /^AvailablePhoneNumbers\/([A-Z]{2})\/(Local|Mobile|TollFree)\.json$/.exec(resource);
    if (available && request.method === 'GET') {
      const type = { Local: 'local', Mobile: 'mobile', TollFree: 'toll_free' }[
        available[2] as 'Local' | 'Mobile' | 'TollFree'
      ];
      const numbers = [...inventory.values()].filter(
        (number) => number.country_code === available[1] && number.number_type === type,
      );
      return json(response, 200, {
        available_phone_numbers: numbers.map((number) => ({
          phone_number: number.phone_number,
          friendly_name: number.phone_number,
          iso_country: number.country_code,
          capabilities: { voice: true, SMS: true, MMS: false, fax: false },
          address_requirements: number.country_code === 'PL' && type === 'mobile' ? 'local' : 'none',
        })),
        uri: `/${API_VERSION}/Accounts/${account.sid}/${resource}`,
      });
    }
    if (resource === 'IncomingPhoneNumbers.json' && request.method === 'GET') {
      const wanted = url.searchParams.get('PhoneNumber');
      const owned = [...account.numbers.values()].filter((number) => !wanted || number.phone_number === wanted);
      return json(response, 200, {
        incoming_phone_numbers: owned.map((number) => ({
          sid: number.sid,
          account_sid: account.sid,
          phone_number: number.phone_number,
          voice_url: number.voiceUrl,
          status: 'in-use',
        })),
        page: 0,
        page_size: 50,
        first_page_uri: `/${API_VERSION}/Accounts/${account.sid}/IncomingPhoneNumbers.json?PageSize=50&Page=0`,
        next_page_uri: null,
        previous_page_uri: null,
        uri: `/${API_VERSION}/Accounts/${account.sid}/IncomingPhoneNumbers.json`,
      });
    }
    if (resource === 'IncomingPhoneNumbers.json' && request.method === 'POST') {
      const phoneNumber = form.get('PhoneNumber') ?? '';
      const offered = inventory.get(phoneNumber);
      if (!offered) return twilioError(response, 400, 21422, `PhoneNumber ${phoneNumber} is not available`);
      const bundle = bundles.get(form.get('BundleSid') ?? '');
      if (
        offered.country_code === 'PL' &&
        offered.number_type === 'mobile' &&
        (bundle?.status !== 'twilio-approved' || bundle.account_sid !== account.sid)
      ) {
        return twilioError(response, 400, 21649, 'Phone Number Requires an approved Bundle');
      }
      inventory.delete(phoneNumber);
      const owned = { ...offered, sid: sid('PN'), voiceUrl: form.get('VoiceUrl') };
      account.numbers.set(phoneNumber, owned);
      return json(response, 201, {
        sid: owned.sid,
        account_sid: account.sid,
        phone_number: phoneNumber,
        voice_url: owned.voiceUrl,
        status: 'in-use',
        bundle_sid: form.get('BundleSid'),
      });
    }
    const release = /^IncomingPhoneNumbers\/(PN\w+)\.json$/.exec(resource);
    if (release && request.method === 'DELETE') {
      const owned = [...account.numbers.values()].find((number) => number.sid === release[1]);
      if (!owned) return twilioError(response, 404, 20404, 'Not found');
      account.numbers.delete(owned.phone_number);
      response.writeHead(204).end();
      return;
    }
    return twilioError(
      response,
      404,
      20404,
      `The requested resource /${API_VERSION}/Accounts/${account.sid}/${resource} was not found`,
    );
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('Telephony simulator:', error);
      if (!response.headersSent) twilioError(response, 500, 20500, 'Internal Server Error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setVoiceUrl: (url) => {
      voiceUrl = url;
    },
    idle: () => inProgress.idle(),
    stop: () => inProgress.stop(server),
  };
}
