import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import { RUN_QUERY_PARAMETER } from '../domain/run-ref.ts';
import {
  ProviderError,
  STREAM_PARAMETERS,
  type CallbackRequest,
  type DialRequest,
  type InboundAnswer,
  type InboundCall,
  type MachineDetectionEvent,
  type MessageRefusal,
  type MessageStatusEvent,
  type ProviderMessageStatus,
  type ProviderCallEvent,
  type ProviderCallStatus,
  type TelephonyAdapter,
  type TransferStep,
} from './adapter.ts';
import { formParams } from './webhook-fields.ts';
import { twilioRegulatoryReview } from './twilio-regulatory.ts';

export interface TwilioCredentials {
  provider: 'twilio';
  account_sid: string;
  auth_token: string;
}

/** Twilio's REST origin; `apiBaseUrl` replaces it (an API-compatible endpoint, e.g. a regional proxy or a test double). */
const TWILIO_API_ORIGIN = 'https://api.twilio.com';
/** The origin replacing Twilio's, if any (an API-compatible endpoint). */
const apiOrigin = (apiBaseUrl?: string) => (apiBaseUrl && apiBaseUrl !== TWILIO_API_ORIGIN ? apiBaseUrl : undefined);

/** Status callbacks older than this (their signed `Timestamp`) are replays and refused. */
export const TWILIO_CALLBACK_TOLERANCE_SECONDS = 15 * 60;

/**
 * The SDK's own HTTP client with the request's origin replaced: the package's documented extension
 * point for a custom HTTP client (`httpClient`), so every resource the SDK knows keeps working.
 */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(private readonly origin: string) {
    super({ timeout: 10_000 });
  }

  override request<TData>(options: RequestClient.RequestOptions<TData>) {
    const uri = new URL(options.uri);
    const target = new URL(this.origin);
    uri.protocol = target.protocol;
    uri.host = target.host;
    return super.request({ ...options, uri: uri.href });
  }
}

export function twilioClient(credentials: TwilioCredentials, apiBaseUrl?: string): twilio.Twilio {
  return twilio(credentials.account_sid, credentials.auth_token, {
    httpClient: apiBaseUrl && apiBaseUrl !== TWILIO_API_ORIGIN ? new RebasedRequestClient(apiBaseUrl) : undefined,
    timeout: 10_000,
  });
}

/** `<Connect><Stream>` to the media service, the run and its stream credential as custom parameters. */
export function streamTwiml(
  streamUrl: string,
  runRef: string,
  streamToken: string,
  statusCallbackUrl?: string,
): string {
  const response = new twilio.twiml.VoiceResponse();
  const stream = response.connect().stream({
    url: streamUrl,
    ...(statusCallbackUrl ? { statusCallback: statusCallbackUrl, statusCallbackMethod: 'POST' } : {}),
  });
  stream.parameter({ name: STREAM_PARAMETERS.runRef, value: runRef });
  stream.parameter({ name: STREAM_PARAMETERS.token, value: streamToken });
  return response.toString();
}

/**
 * The `AnsweredBy` of an asynchronous AMD callback → verdict and greeting: `machine_end_*`
 * (DetectMessageEnd) come once the greeting is over, `machine_start` (Enable) as soon as a machine
 * is recognised; a fax has no greeting to wait for.
 */
export function mapTwilioAnsweredBy(answeredBy: string): Pick<MachineDetectionEvent, 'verdict' | 'greeting' | 'beep'> {
  if (answeredBy === 'human') return { verdict: 'human', greeting: 'unknown', beep: false };
  if (answeredBy.startsWith('machine_end_'))
    return { verdict: 'machine', greeting: 'ended', beep: answeredBy === 'machine_end_beep' };
  if (answeredBy === 'machine_start' || answeredBy === 'fax')
    return { verdict: 'machine', greeting: 'unknown', beep: false };
  return { verdict: 'unknown', greeting: 'unknown', beep: false };
}

/** Twilio `CallStatus` → platform status. */
export function mapTwilioStatus(callStatus: string): ProviderCallStatus | undefined {
  switch (callStatus) {
    case 'ringing':
      return 'ringing';
    case 'in-progress':
    case 'answered':
      return 'answered';
    case 'completed':
      return 'completed';
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no-answer';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return undefined; // queued, initiated: nothing to record
  }
}

/** Twilio `MessageStatus` → platform status (accepted, scheduled, sending: not handed on yet; read: delivered). */
export function mapTwilioMessageStatus(messageStatus: string): ProviderMessageStatus | undefined {
  if (['accepted', 'scheduled', 'queued', 'sending'].includes(messageStatus)) return 'queued';
  if (messageStatus === 'read') return 'delivered';
  if (['sent', 'delivered', 'undelivered', 'failed'].includes(messageStatus))
    return messageStatus as ProviderMessageStatus;
  return undefined; // receiving, received, canceled: not an outbound message's progress
}

/** Twilio's delivery error codes (30xxx) the platform names. */
const TWILIO_DELIVERY_ERRORS: Record<string, string> = {
  '30003': 'unreachable',
  '30004': 'blocked',
  '30005': 'unknown_destination',
  '30006': 'landline_or_unreachable_carrier',
  '30007': 'filtered',
  '30008': 'unknown_error',
};

/** Twilio's refusals of a new message, by error code. */
const TWILIO_MESSAGE_REFUSALS: Record<number, MessageRefusal> = {
  20429: 'rate_limited',
  21606: 'sender_cannot_text',
  21612: 'sender_cannot_text',
  21211: 'invalid_destination',
  21614: 'invalid_destination',
};

function rethrow(error: unknown, what: string): never {
  const { status, code } = error as { status?: number; code?: number };
  const message = error instanceof Error ? error.message : String(error);
  const refusal = (code && TWILIO_MESSAGE_REFUSALS[code]) || (status === 429 ? 'rate_limited' : undefined);
  throw new ProviderError(`Twilio ${what} failed${status ? ` (HTTP ${status})` : ''}: ${message}`, status, refusal);
}

export function twilioAdapter(
  credentials: TwilioCredentials,
  options: { apiBaseUrl?: string; now?: () => number } = {},
): TelephonyAdapter {
  const client = twilioClient(credentials, options.apiBaseUrl);
  const now = options.now ?? Date.now;
  /** New TwiML for a live call: `<Say>` then `<Hangup>`. A call over meanwhile is not an error. */
  async function sayThenHangUp(callId: string, message: string, what: string): Promise<void> {
    const response = new twilio.twiml.VoiceResponse();
    response.say(message);
    response.hangup();
    try {
      await client.calls(callId).update({ twiml: response.toString() });
    } catch (error) {
      // 404, or 21220 "Call is not in-progress": the callee hung up meanwhile; nothing to say.
      const { status, code } = error as { status?: number; code?: number };
      if (status === 404 || code === 21220) return;
      rethrow(error, what);
    }
  }
  return {
    provider: 'twilio',
    accountId: credentials.account_sid,
    calls: {
      // The call's TwiML is `<Connect><Stream>` alone (streamTwiml): when the stream ends, so does the call.
      streamEndsCall: true,

      async dial(request: DialRequest) {
        try {
          const call = await client.calls.create({
            to: request.to,
            from: request.from,
            twiml: streamTwiml(request.streamUrl, request.runRef, request.streamToken),
            statusCallback: request.statusCallbackUrl,
            statusCallbackMethod: 'POST',
            // Only the final status: the platform acts on no other (the media stream's admission marks
            // a call answered), and each event is a signed request and a function invocation.
            statusCallbackEvent: ['completed'],
            // Asynchronous AMD: the stream starts at once (the agent greets a person without a
            // silence), the verdict comes to its own signed callback. DetectMessageEnd waits for the
            // greeting's end (the beep) to report a machine, so a message left then is recorded.
            machineDetection: request.onMachine === 'leave_message' ? 'DetectMessageEnd' : 'Enable',
            asyncAmd: 'true',
            asyncAmdStatusCallback: request.statusCallbackUrl,
            asyncAmdStatusCallbackMethod: 'POST',
          });
          return { callId: call.sid };
        } catch (error) {
          rethrow(error, 'dial');
        }
      },

      async hangUp(callId) {
        try {
          // `completed` ends an answered call and cancels a queued or ringing one.
          await client.calls(callId).update({ status: 'completed' });
        } catch (error) {
          // 404: the call is already over; nothing to hang up.
          if ((error as { status?: number }).status === 404) return;
          rethrow(error, 'hang-up');
        }
      },

      // New TwiML for the live call: the `<Connect><Stream>` ends (the media stream stops), Twilio
      // speaks the message and hangs up.
      leaveVoicemail: (callId, message) => sayThenHangUp(callId, message, 'voicemail'),

      whisperAs: 'text',

      async transfer(callId, request) {
        // New TwiML for the live call: the `<Connect><Stream>` ends, Twilio dials the destination and
        // bridges the caller when it answers. Warm: the whisper callback (`<Number url>`) answers with
        // the message, said to the person before the bridge; a machine there (AnsweredBy) is hung up on.
        const step = (name: 'whisper' | 'outcome') => {
          const url = new URL(request.callbackUrl);
          url.searchParams.set('step', name);
          return url.href;
        };
        const response = new twilio.twiml.VoiceResponse();
        const dial = response.dial({
          callerId: request.from,
          timeout: request.timeoutSeconds,
          action: step('outcome'),
          method: 'POST',
          answerOnBridge: true,
        });
        const whisper = request.whisper ? { url: step('whisper'), method: 'POST' } : {};
        if (request.to.startsWith('sip')) dial.sip(whisper, request.to);
        else
          dial.number(
            {
              ...whisper,
              ...(request.whisper ? { machineDetection: 'Enable' } : {}),
              ...(request.extension ? { sendDigits: request.extension } : {}),
            },
            request.to,
          );
        try {
          await client.calls(callId).update({ twiml: response.toString() });
        } catch (error) {
          rethrow(error, 'transfer');
        }
      },

      sayAndHangUp: (callId, message) => sayThenHangUp(callId, message, 'say'),

      async reconnectStream(callId, { streamUrl, runRef, streamToken, statusCallbackUrl }) {
        try {
          await client.calls(callId).update({ twiml: streamTwiml(streamUrl, runRef, streamToken, statusCallbackUrl) });
        } catch (error) {
          rethrow(error, 'stream');
        }
      },

      // Twilio answers by the webhook's TwiML, whatever the webhook announced.
      async answerInbound(answer: InboundAnswer) {
        if (answer.action === 'connect') {
          return { contentType: 'text/xml', body: streamTwiml(answer.streamUrl, answer.runRef, answer.streamToken) };
        }
        const response = new twilio.twiml.VoiceResponse();
        response.say(answer.message);
        response.hangup();
        return { contentType: 'text/xml', body: response.toString() };
      },
    },

    callbacks: {
      async verifyCallback({ url, headers, rawBody }: CallbackRequest) {
        const signature = headers['x-twilio-signature'];
        if (!signature) return false;
        const params = formParams(rawBody);
        if (!twilio.validateRequest(credentials.auth_token, signature, url, params)) return false;
        // The signature has no time in it; a status callback's signed Timestamp bounds replays.
        if (params.Timestamp) {
          const at = Date.parse(params.Timestamp);
          if (!Number.isFinite(at) || Math.abs(now() - at) > TWILIO_CALLBACK_TOLERANCE_SECONDS * 1000) return false;
        }
        return true;
      },

      parseStatus({ url, rawBody }: CallbackRequest): ProviderCallEvent | undefined {
        const params = formParams(rawBody);
        const runRef = new URL(url).searchParams.get(RUN_QUERY_PARAMETER);
        if (!runRef || !params.CallSid) return undefined;
        // The asyncAmdStatusCallback: CallSid, AccountSid, AnsweredBy, MachineDetectionDuration.
        if (params.AnsweredBy && !params.CallStatus)
          return {
            callId: params.CallSid,
            runRef,
            ...mapTwilioAnsweredBy(params.AnsweredBy),
            detail: params.AnsweredBy,
            timestamp: new Date(now()).toISOString(),
          };
        const status = mapTwilioStatus(params.CallStatus ?? '');
        if (!status) return undefined;
        const at = params.Timestamp ? Date.parse(params.Timestamp) : NaN;
        return {
          callId: params.CallSid,
          runRef,
          status,
          timestamp: new Date(Number.isFinite(at) ? at : now()).toISOString(),
        };
      },

      parseInbound({ rawBody }: CallbackRequest): InboundCall | undefined {
        const params = formParams(rawBody);
        if (!params.CallSid || !params.From || !params.To || params.Direction !== 'inbound') return undefined;
        return { callId: params.CallSid, from: params.From, to: params.To };
      },
    },

    messaging: {
      async send({ to, from, body, statusCallbackUrl }) {
        try {
          const message = await client.messages.create({ to, from, body, statusCallback: statusCallbackUrl });
          return {
            messageId: message.sid,
            status: mapTwilioMessageStatus(message.status) ?? 'queued',
            segments: Math.max(1, Number(message.numSegments) || 1),
          };
        } catch (error) {
          rethrow(error, 'message');
        }
      },

      // MessageStatus callbacks (no Timestamp: a replay changes nothing, statuses only move forward).
      parseMessageStatus({ rawBody }: CallbackRequest): MessageStatusEvent | undefined {
        const params = formParams(rawBody);
        const status = mapTwilioMessageStatus(params.MessageStatus ?? '');
        if (!params.MessageSid || !status) return undefined;
        const errorCode = params.ErrorCode || null;
        return {
          messageId: params.MessageSid,
          status,
          errorCode,
          errorReason: errorCode ? (TWILIO_DELIVERY_ERRORS[errorCode] ?? 'undeliverable') : null,
          timestamp: new Date(now()).toISOString(),
        };
      },

      parseInboundMessage({ rawBody }: CallbackRequest) {
        const params = formParams(rawBody);
        if (!params.MessageSid || !params.From || !params.To || params.Body === undefined || params.CallSid)
          return undefined;
        return {
          messageId: params.MessageSid,
          from: params.From,
          to: params.To,
          body: params.Body,
          segments: Math.max(1, Number(params.NumSegments) || 1),
        };
      },
    },

    transferCallbacks: {
      parseTransferStep({ url, rawBody }: CallbackRequest): TransferStep | undefined {
        const query = new URL(url).searchParams;
        const runRef = query.get(RUN_QUERY_PARAMETER);
        const params = formParams(rawBody);
        if (!runRef) return undefined;
        if (query.get('step') === 'whisper')
          return {
            runRef,
            step: 'whisper',
            machine: mapTwilioAnsweredBy(params.AnsweredBy ?? '').verdict === 'machine',
          };
        if (query.get('step') !== 'outcome') return undefined;
        // The `<Dial>` action: DialCallStatus completed (answered, then over), busy, no-answer, failed, canceled.
        const status =
          params.DialCallStatus === 'answered' ? 'completed' : mapTwilioStatus(params.DialCallStatus ?? '');
        return {
          runRef,
          step: 'outcome',
          status: status ?? 'failed',
          legSeconds: Math.max(0, Number(params.DialCallDuration ?? 0) || 0),
        };
      },

      answerTransferStep(step, next) {
        if (next && 'reconnect' in next) {
          const { streamUrl, runRef, streamToken, statusCallbackUrl } = next.reconnect;
          return { contentType: 'text/xml', body: streamTwiml(streamUrl, runRef, streamToken, statusCallbackUrl) };
        }
        const response = new twilio.twiml.VoiceResponse();
        if (next) response.say(next.say);
        // The whisper goes on to the bridge; anything else ends the (called, or calling) leg.
        if (step.step === 'outcome' || (step.step === 'whisper' && !next)) response.hangup();
        return { contentType: 'text/xml', body: response.toString() };
      },
    },

    numbers: {
      async ownsNumber(e164) {
        try {
          const owned = await client.incomingPhoneNumbers.list({ phoneNumber: e164, limit: 1 });
          return owned.some((number) => number.phoneNumber === e164);
        } catch (error) {
          rethrow(error, 'number lookup');
        }
      },

      async searchNumbers(country, type) {
        const inCountry = client.availablePhoneNumbers(country);
        const query = { voiceEnabled: true, limit: 50 };
        try {
          let numbers: { phoneNumber: string; isoCountry: string; capabilities?: Record<string, boolean> }[];
          if (type === 'local') numbers = await inCountry.local.list(query);
          else if (type === 'mobile') numbers = await inCountry.mobile.list(query);
          else if (type === 'toll_free') numbers = await inCountry.tollFree.list(query);
          else return [];
          return numbers.map((number) => ({
            phone_number: number.phoneNumber,
            country_code: number.isoCountry,
            number_type: type,
            capabilities: Object.entries(number.capabilities ?? {}).flatMap(([name, enabled]) =>
              enabled ? [name.toLowerCase()] : [],
            ),
          }));
        } catch (error) {
          // Twilio answers 404 for a country without that type of number.
          if ((error as { status?: number }).status === 404) return [];
          rethrow(error, 'number search');
        }
      },

      async buyNumber(e164, { voiceUrl, messagingUrl, regulatoryBundleId }) {
        try {
          const number = await client.incomingPhoneNumbers.create({
            phoneNumber: e164,
            voiceUrl,
            voiceMethod: 'POST',
            ...(messagingUrl ? { smsUrl: messagingUrl, smsMethod: 'POST' } : {}),
            ...(regulatoryBundleId ? { bundleSid: regulatoryBundleId } : {}),
          });
          // The IncomingPhoneNumber's own capabilities (`{voice, sms, mms, fax}`): what this number can do.
          const capabilities = number.capabilities as Record<string, boolean> | undefined;
          return {
            providerNumberId: number.sid,
            capabilities: capabilities
              ? Object.entries(capabilities).flatMap(([name, enabled]) => (enabled ? [name.toLowerCase()] : []))
              : null,
          };
        } catch (error) {
          rethrow(error, 'number purchase');
        }
      },

      async releaseNumber(providerNumberId) {
        try {
          await client.incomingPhoneNumbers(providerNumberId).remove();
        } catch (error) {
          if ((error as { status?: number }).status === 404) return;
          rethrow(error, 'number release');
        }
      },
    },

    regulatoryReview: twilioRegulatoryReview(client, credentials, apiOrigin(options.apiBaseUrl), rethrow),
  };
}
