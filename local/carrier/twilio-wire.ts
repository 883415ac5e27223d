import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnsweringMachine } from './callee-directory.ts';
import { SimulatedCarrier, type Answerer, type OutboundLine, type SimulatedCarrierOptions } from './carrier.ts';
import { isLoopback, readBody, sendJson, serveOnLoopback } from './http.ts';
import { readTwiml } from './twiml.ts';
import { signedWebhook, TwilioAccounts, type TwilioAccount } from './twilio-accounts.ts';
import { twilioMessages } from './twilio-messages.ts';
import { twilioDial, type RedirectableCall } from './twilio-dial.ts';
import { twilioNumbers } from './twilio-numbers.ts';
import { DEFAULT_REVIEW_DELAY_MS } from './regulatory-reviewers.ts';
import { twilioStreamFrames } from './twilio-stream-frames.ts';
import { API_VERSION, twilioError, twilioErrorBody, twilioSid } from './twilio-rest.ts';

export interface LocalTwilioOptions extends SimulatedCarrierOptions {
  /** The platform's Twilio account (more can be created through the Accounts resource). */
  account: { sid: string; authToken: string };
  /** Numbers the platform account owns from the start (its caller id). */
  ownedNumbers?: string[];
  /** Outbound calls per second each account may create (Twilio's CPS); more answer 429. */
  callsPerSecond: number;
  /** How long the local reviewers take to decide a regulatory bundle (default DEFAULT_REVIEW_DELAY_MS). */
  reviewDelayMs?: number;
}

export interface LocalTwilio {
  /** Origin of the Twilio-compatible REST API (the SDK's API origin). */
  apiUrl: string;
  /** Where a test picks up the handset of a number (`<handsetsUrl><number>`, handsets.ts): a WebSocket. */
  handsetsUrl: string;
  /** Where incoming calls to the platform's numbers are announced (the numbers' VoiceUrl). */
  setVoiceUrl: (url: string) => void;
  /** Where texts to numbers without an SmsUrl of their own are announced (the platform's messaging webhook). */
  setMessagingUrl: (url: string) => void;
  /** Resolves when every call placed so far has ended and reported its status (tests). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

interface TwilioCall extends RedirectableCall {
  direction: 'outbound-api' | 'inbound';
  status: 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';
  statusCallback: string | null;
  events: Set<string>;
  /** Asynchronous answering-machine detection: its mode and where its result goes (`AsyncAmdStatusCallback`). */
  asyncAmd: { mode: 'Enable' | 'DetectMessageEnd'; callback: string } | null;
  answeredAt: number | null;
  sequence: number;
}

/** `MachineDetection` with `AsyncAmd=true` (the only detection the local Twilio runs: the platform's). */
function asyncAmdOf(form: URLSearchParams): TwilioCall['asyncAmd'] {
  const mode = form.get('MachineDetection');
  const callback = form.get('AsyncAmdStatusCallback');
  if ((mode !== 'Enable' && mode !== 'DetectMessageEnd') || form.get('AsyncAmd') !== 'true' || !callback) return null;
  return { mode, callback };
}

/**
 * A local Twilio on the simulated carrier: the Programmable Voice REST API the `twilio` SDK speaks
 * (Accounts, Calls, and the number resources of twilio-numbers.ts; form-encoded, HTTP Basic auth,
 * JSON answers and Twilio's error shape, 429 above the account's calls per second), status
 * callbacks signed with X-Twilio-Signature exactly as Twilio computes it, asynchronous
 * answering-machine detection, TwiML (twiml.ts: `<Connect><Stream>`, `<Say>`, and `<Dial>` with a
 * whisper URL and an action, run by twilio-dial.ts), and Media Streams framing. As on Twilio, `<Connect><Stream>` is the
 * call's last verb: when the stream ends, so does the call. Incoming calls are rung through the
 * test control resource `POST /_simulator/incoming-calls` (a phone calling a platform number),
 * which calls the number's VoiceUrl like Twilio; a test holds a phone at a number through
 * `/_simulator/handsets/<number>` (handsets.ts). Texts go through the Messages API of
 * twilio-messages.ts; a phone texts a number through `POST /_simulator/incoming-messages`.
 */
export async function startLocalTwilio(options: LocalTwilioOptions): Promise<LocalTwilio> {
  const carrier = new SimulatedCarrier(options);
  const accounts = new TwilioAccounts(options.account, options.callsPerSecond, carrier.numbers);
  const numbers = twilioNumbers(carrier.numbers, {
    delayMs: options.reviewDelayMs ?? DEFAULT_REVIEW_DELAY_MS,
    notify: async (accountSid, url, params) => {
      const account = accounts.get(accountSid);
      if (account && isLoopback(url)) await signedWebhook(account, url, params);
    },
  });
  const { platform } = accounts;
  const calls = new Map<string, TwilioCall>();
  let voiceUrl: string | null = null;
  let messagingUrl: string | null = null;

  for (const number of options.ownedNumbers ?? []) {
    carrier.numbers.assign(platform.sid, {
      phone_number: number,
      country_code: 'US',
      number_type: 'local',
      capabilities: ['voice', 'sms'],
      id: twilioSid('PN'),
      voiceUrl: null,
    });
  }

  const callResource = (call: TwilioCall) => ({
    sid: call.id,
    account_sid: call.account.sid,
    to: call.to,
    from: call.from,
    status: call.status,
    direction: call.direction,
    api_version: API_VERSION,
    date_created: new Date().toUTCString(),
    uri: `/${API_VERSION}/Accounts/${call.account.sid}/Calls/${call.id}.json`,
  });

  /**
   * A signed webhook request to the platform. One that got no answer at all (a reset connection: a
   * kept-alive socket the local gateway was closing, which happens under load) is sent once more,
   * as Twilio retries a failed connection when a webhook URL asks for it (connection overrides,
   * `rc`): a lost final status would leave the run waiting for its watchdog.
   */
  const signedPost = (account: TwilioAccount, url: string, params: Record<string, string>) =>
    carrier.deliver('Local Twilio', () =>
      signedWebhook(account, url, params).catch(() => signedWebhook(account, url, params)),
    );

  const messages = twilioMessages(carrier.messaging, carrier.numbers, (sid, url, params) =>
    signedPost(accounts.get(sid) ?? platform, url, params),
  );

  async function report(
    call: TwilioCall,
    event: 'ringing' | 'answered' | 'completed',
    extra: Record<string, string> = {},
  ): Promise<void> {
    // Twilio always reports the final status; the others only when subscribed.
    if (!call.statusCallback || (event !== 'completed' && !call.events.has(event))) return;
    call.sequence += 1;
    const response = await signedPost(call.account, call.statusCallback, {
      AccountSid: call.account.sid,
      ApiVersion: API_VERSION,
      CallSid: call.id,
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
      console.error(`Local Twilio: status callback answered ${response.status}: ${await response.text()}`);
  }

  /**
   * The callee's side of an answered call, over Media Streams. As on Twilio, the call's TwiML is
   * `<Connect><Stream>` alone, so when the platform closes the stream the call goes on to the next
   * verb: there is none (or what replaced it, playReplacedTwiml), and the call ends.
   */
  const converse = (call: TwilioCall, machine?: AnsweringMachine) =>
    carrier.converse(
      call,
      {
        url: call.stream!.url,
        // The stream ends with the call, or when new TwiML replaces the `<Connect><Stream>`.
        hangUp: AbortSignal.any([call.hangUp.signal, call.redirect.signal]),
        frames: twilioStreamFrames(call, call.stream!.parameters),
      },
      machine,
    );

  /**
   * Asynchronous AMD as Twilio reports it to `AsyncAmdStatusCallback` (AccountSid, CallSid,
   * AnsweredBy, MachineDetectionDuration): `human` or `machine_start` a few seconds after the
   * answer (`Enable`, and DetectMessageEnd's person), `machine_end_beep` / `machine_end_silence`
   * once the greeting is over (DetectMessageEnd), `unknown` when detection times out. Nothing is
   * sent for a call that ended first.
   */
  async function detectAnsweringMachine(
    call: TwilioCall,
    answerer: Answerer,
    at: (ms: number) => Promise<boolean>,
  ): Promise<void> {
    const amd = call.asyncAmd;
    if (!amd) return;
    const { machine } = answerer;
    const atGreetingEnd = machine && amd.mode === 'DetectMessageEnd';
    const afterMs = atGreetingEnd ? answerer.greetingEndMs! : answerer.verdictMs;
    let answeredBy = answerer.kind === 'human' ? 'human' : 'unknown';
    if (atGreetingEnd) answeredBy = machine.beep ? 'machine_end_beep' : 'machine_end_silence';
    else if (machine) answeredBy = 'machine_start';
    if (!(await at(afterMs)) || call.status !== 'in-progress') return;
    const response = await signedPost(call.account, amd.callback, {
      AccountSid: call.account.sid,
      CallSid: call.id,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: String(afterMs),
    });
    if (response && !response.ok)
      console.error(`Local Twilio: AMD callback answered ${response.status}: ${await response.text()}`);
  }

  /** New TwiML for a live call (Calls update): the stream ends, and what it says plays. */
  function replaceTwiml(call: TwilioCall, twiml: string): void {
    call.replacedBy = readTwiml(twiml);
    call.redirect.abort();
  }

  const { playReplacedTwiml } = twilioDial({ carrier, signedPost, converse });

  /** An outbound call's progress as status callbacks (`StatusCallbackEvent`s, and always the final one). */
  const outbound: OutboundLine<TwilioCall, 'completed' | 'failed'> = {
    async ringing(call) {
      call.status = 'ringing';
      await report(call, 'ringing');
    },
    unanswered(call, why) {
      call.status = why;
      return report(call, 'completed');
    },
    answered(call) {
      call.status = 'in-progress';
      call.answeredAt = Date.now();
      return report(call, 'answered');
    },
    detect: detectAnsweringMachine,
    async talk(call, machine) {
      if (call.stream && !call.hangUp.signal.aborted) {
        try {
          await converse(call, machine);
        } catch (error) {
          carrier.logFailure('Local Twilio', 'media stream failed', error);
          call.status = 'failed';
          return 'failed';
        }
      }
      await playReplacedTwiml(call);
      call.status = 'completed';
      return 'completed';
    },
    ended(call, end) {
      if (end === 'failed') return report(call, 'completed');
      const duration = String(Math.round((Date.now() - call.answeredAt!) / 1000));
      return report(call, 'completed', { CallDuration: duration });
    },
  };

  /** Incoming: connected at once to what the platform's TwiML said. */
  async function runIncoming(call: TwilioCall): Promise<void> {
    call.status = 'in-progress';
    call.answeredAt = Date.now();
    await converse(call).catch((error: unknown) => carrier.logFailure('Local Twilio', 'media stream failed', error));
    call.status = 'completed';
  }

  const newCall = (
    account: TwilioAccount,
    fields: Pick<TwilioCall, 'to' | 'from' | 'direction' | 'status'>,
  ): TwilioCall => ({
    id: twilioSid('CA'),
    account,
    ...fields,
    statusCallback: null,
    events: new Set(),
    asyncAmd: null,
    stream: null,
    redirect: new AbortController(),
    replacedBy: null,
    answeredAt: null,
    sequence: 0,
    hangUp: new AbortController(),
  });

  function createCall(account: TwilioAccount, form: URLSearchParams, response: ServerResponse): void {
    const now = Date.now();
    if (!accounts.admitCall(account, now)) return twilioError(response, 429, 20429, 'Too Many Requests');
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return twilioError(response, 400, 21211, `Invalid 'To' Phone Number: ${to}`);
    if (!/^\+[1-9]\d{6,14}$/.test(from))
      return twilioError(response, 400, 21212, `Invalid 'From' Phone Number: ${from}`);
    const twiml = form.get('Twiml');
    if (!twiml && !form.get('Url')) return twilioError(response, 400, 21205, 'Url or Twiml parameter is required');
    account.created.push(now);
    const call: TwilioCall = {
      ...newCall(account, { to, from, direction: 'outbound-api', status: 'queued' }),
      statusCallback: form.get('StatusCallback'),
      events: new Set(form.getAll('StatusCallbackEvent').flatMap((event) => event.split(' '))),
      asyncAmd: asyncAmdOf(form),
      stream: twiml ? readTwiml(twiml).stream : null,
    };
    calls.set(call.id, call);
    carrier.track(call.hangUp, carrier.placeOutbound(call, outbound));
    sendJson(response, 201, callResource(call));
  }

  async function ringIncoming(
    from: string,
    to: string,
  ): Promise<{ call_sid: string; answer: 'connected' | 'rejected'; say: string[] }> {
    const holder = carrier.numbers.holder(to);
    const url = holder?.number.voiceUrl ?? voiceUrl;
    const account = (holder && accounts.get(holder.owner)) ?? platform;
    if (!url) throw new Error('No VoiceUrl for incoming calls');
    const call = newCall(account, { to, from, direction: 'inbound', status: 'ringing' });
    const reply = await signedPost(account, url, {
      AccountSid: account.sid,
      ApiVersion: API_VERSION,
      CallSid: call.id,
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
    if (call.stream) {
      calls.set(call.id, call);
      carrier.track(call.hangUp, runIncoming(call));
    }
    return { call_sid: call.id, answer: call.stream ? 'connected' : 'rejected', say: twiml.say };
  }

  /** Test control: the outside world, not Twilio's API. The answer, or undefined when `path` is none of it. */
  async function control(
    method: string | undefined,
    path: string,
    form: URLSearchParams,
  ): Promise<{ status: number; body: unknown } | undefined> {
    if (path === '/_simulator/spoken' && method === 'GET')
      return { status: 200, body: carrier.spoken.map(({ callId, ...said }) => ({ callSid: callId, ...said })) };
    if (path === '/_simulator/transfers' && method === 'GET')
      return {
        status: 200,
        body: carrier.transfers.map(({ callId, to, callerId, ...transfer }) => ({
          callSid: callId,
          to,
          caller_id: callerId,
          ...transfer,
        })),
      };
    if (path === '/_simulator/incoming-calls' && method === 'POST')
      return { status: 200, body: await ringIncoming(form.get('From') ?? '', form.get('To') ?? '') };
    if (path === '/_simulator/incoming-messages' && method === 'POST')
      return messages.incoming(form.get('From') ?? '', form.get('To') ?? '', form.get('Body') ?? '', messagingUrl);
    if (path === '/_simulator/messages' && method === 'GET') return { status: 200, body: carrier.messaging.messages };
    const limits = /^\/_simulator\/accounts\/(AC\w+)$/.exec(path);
    if (!limits) return undefined;
    const account = accounts.get(limits[1]!);
    if (!account) return { status: 404, body: twilioErrorBody(404, 20404, 'Not found') };
    const messagesPerSecond = method === 'POST' ? form.get('MessagesPerSecond') : null;
    return {
      status: 200,
      body: {
        ...accounts.limits(account, method === 'POST' ? form.get('CallsPerSecond') : null),
        ...carrier.messaging.limits(account.sid, messagesPerSecond === null ? undefined : Number(messagesPerSecond)),
      },
    };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // A SupportingDocument with its file: multipart, as Twilio's upload host takes it.
    if (url.pathname === '/v2/RegulatoryCompliance/SupportingDocuments' && request.method === 'POST') {
      const user = accounts.signedIn(request);
      if (!user) return twilioError(response, 401, 20003, 'Authenticate');
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const multipart = await new Response(Buffer.concat(chunks), {
        headers: { 'content-type': request.headers['content-type'] ?? '' },
      })
        .formData()
        .catch(() => undefined);
      if (!multipart) return twilioError(response, 400, 22201, 'The request must be multipart/form-data with a File');
      return numbers.supportingDocument(user.sid, multipart, response);
    }
    const form = new URLSearchParams(await readBody(request));
    const path = url.pathname;
    const controlled = await control(request.method, path, form);
    if (controlled) return sendJson(response, controlled.status, controlled.body);

    const compliance = /^\/v2\/RegulatoryCompliance\/(Bundles|EndUsers)(?:\/(BU\w+))?(\/ItemAssignments)?$/.exec(path);
    if (compliance && (request.method === 'POST' || request.method === 'GET')) {
      const user = accounts.signedIn(request);
      if (!user) return twilioError(response, 401, 20003, 'Authenticate');
      return numbers.compliance(user.sid, request.method, compliance.slice(1), form, response);
    }

    if (path === `/${API_VERSION}/Accounts.json` && request.method === 'POST') {
      if (!accounts.authenticate(request, platform.sid)) return twilioError(response, 401, 20003, 'Authenticate');
      const account = accounts.add(twilioSid('AC'), randomBytes(16).toString('hex'));
      return sendJson(response, 201, {
        sid: account.sid,
        auth_token: account.authToken,
        friendly_name: form.get('FriendlyName') ?? account.sid,
        status: 'active',
        owner_account_sid: platform.sid,
      });
    }
    const match = /^\/2010-04-01\/Accounts\/(AC\w+)\/(.+)$/.exec(path);
    if (!match) return twilioError(response, 404, 20404, 'The requested resource was not found');
    const account = accounts.authenticate(request, match[1]!);
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
      return sendJson(response, 200, callResource(call));
    }
    if (messages.accountResource(account.sid, resource, request.method, form, response)) return;
    if (
      numbers.accountResource(
        account.sid,
        resource,
        { method: request.method, query: url.searchParams, form },
        response,
      )
    )
      return;
    return twilioError(
      response,
      404,
      20404,
      `The requested resource /${API_VERSION}/Accounts/${account.sid}/${resource} was not found`,
    );
  }

  const { server, origin } = await serveOnLoopback('Local Twilio', handle, (response) =>
    twilioError(response, 500, 20500, 'Internal Server Error'),
  );
  return {
    apiUrl: origin,
    handsetsUrl: carrier.serveHandsets(server, origin),
    setVoiceUrl: (url) => {
      voiceUrl = url;
    },
    setMessagingUrl: (url) => {
      messagingUrl = url;
    },
    idle: () => carrier.idle(),
    stop: () => {
      numbers.stop();
      return carrier.stop(server);
    },
  };
}
