import Telnyx from 'telnyx';
import {
  ProviderError,
  STREAM_PARAMETERS,
  type CallbackRequest,
  type DialRequest,
  type InboundAnswer,
  type InboundCall,
  type MachineDetectionEvent,
  type MessageRefusal,
  type MessageSpokenEvent,
  type MessageStatusEvent,
  type ProviderMessageStatus,
  type ProviderCallEvent,
  type ProviderCallStatus,
  type ProviderStatusEvent,
  type TelephonyAdapter,
  type TransferLegEvent,
} from './adapter.ts';
import type { MachineVerdict } from '../domain/run.ts';
import { telnyxRegulatoryReview } from './telnyx-regulatory.ts';
import { TELNYX_CODEC_QUERY } from './media-codecs.ts';

export interface TelnyxCredentials {
  provider: 'telnyx';
  api_key: string;
  /** The account's Ed25519 webhook public key (base64, from the Telnyx portal). */
  public_key: string;
  /** The Call Control application (connection) calls are placed on. */
  connection_id: string;
}

interface TelnyxEvent {
  data?: { event_type?: string; occurred_at?: string; payload?: Record<string, unknown> };
}

/** `call.hangup` causes of calls that never connected. */
const HANGUP_CAUSES: Record<string, ProviderCallStatus> = {
  user_busy: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
  call_rejected: 'failed',
  not_found: 'failed',
  originator_cancel: 'failed',
  unspecified: 'failed',
};

/** `call.machine.detection.ended` result → verdict (`not_sure`: detection could not tell). */
const DETECTION_RESULTS: Record<string, MachineVerdict> = { human: 'human', machine: 'machine', not_sure: 'unknown' };

/** What a Telnyx event reports, without the run (read from client_state by the caller). */
type TelnyxCallEvent =
  | Omit<ProviderStatusEvent, 'runRef'>
  | Omit<MachineDetectionEvent, 'runRef'>
  | Omit<MessageSpokenEvent, 'runRef'>
  | Omit<TransferLegEvent, 'runRef'>;

/** The client_state of a transfer's new leg: the run, marked (its events are the transfer's, not the call's). */
const TRANSFER_LEG_PREFIX = 'transfer:';

/** A transfer leg's event (its client_state marked), or undefined for the call's own. */
function transferLegEvent(
  type: string,
  payload: Record<string, unknown>,
): Omit<TransferLegEvent, 'runRef' | 'callId' | 'timestamp'> | null {
  if (type === 'call.answered') return { transferLeg: 'answered' };
  if (type === 'call.machine.detection.ended') return payload.result === 'machine' ? { transferLeg: 'machine' } : null;
  if (type === 'call.hangup') {
    const cause = String(payload.hangup_cause ?? 'unspecified');
    const status =
      cause === 'normal_clearing' || cause === 'time_limit' ? 'completed' : (HANGUP_CAUSES[cause] ?? 'failed');
    return { transferLeg: 'ended', status };
  }
  return null;
}

/**
 * A Telnyx Call Control event → platform event (client_state carries the run reference). With
 * `detect_beep`, `call.machine.detection.ended` gives the verdict (a machine's greeting end
 * follows), `call.machine.greeting.ended` the greeting's end (`beep_detected`, or `ended` /
 * `not_sure` for a machine without a beep).
 */
export function mapTelnyxEvent(event: TelnyxEvent): (TelnyxCallEvent & { runRef?: string }) | undefined {
  const type = event.data?.event_type;
  const payload = event.data?.payload ?? {};
  const callId = typeof payload.call_control_id === 'string' ? payload.call_control_id : undefined;
  if (!type || !callId) return undefined;
  const state =
    typeof payload.client_state === 'string' ? Buffer.from(payload.client_state, 'base64').toString('utf8') : undefined;
  const timestamp = event.data?.occurred_at ?? new Date().toISOString();
  if (state?.startsWith(TRANSFER_LEG_PREFIX)) {
    const leg = transferLegEvent(type, payload);
    return leg ? { callId, runRef: state.slice(TRANSFER_LEG_PREFIX.length), ...leg, timestamp } : undefined;
  }
  const runRef = state;
  const result = String(payload.result ?? '');
  if (type === 'call.machine.detection.ended') {
    const verdict = DETECTION_RESULTS[result] ?? 'unknown';
    const greeting = verdict === 'machine' ? 'pending' : 'unknown';
    return { callId, runRef, verdict, greeting, beep: false, detail: result, timestamp };
  }
  if (type === 'call.machine.greeting.ended')
    return {
      callId,
      runRef,
      verdict: 'machine',
      greeting: 'ended',
      beep: result === 'beep_detected',
      detail: result,
      timestamp,
    };
  if (type === 'call.speak.ended') return { callId, runRef, messageSpoken: true, timestamp };
  let status: ProviderCallStatus | undefined;
  if (type === 'call.answered') status = 'answered';
  else if (type === 'call.hangup') {
    const cause = String(payload.hangup_cause ?? 'unspecified');
    status = cause === 'normal_clearing' || cause === 'time_limit' ? 'completed' : (HANGUP_CAUSES[cause] ?? 'failed');
  }
  return status ? { callId, runRef, status, timestamp } : undefined;
}

/**
 * The media stream of a dial or an answer: bidirectional mu-law (the platform speaks back over
 * RTP), the run and its credential in the stream URL's query (Telnyx has no custom stream
 * parameters), the run also as `client_state` of the call's events, which go to `webhookUrl`.
 */
function streamCommand(request: { streamUrl: string; runRef: string; streamToken: string; webhookUrl: string }) {
  const streamUrl = new URL(request.streamUrl);
  streamUrl.searchParams.set(TELNYX_CODEC_QUERY.name, TELNYX_CODEC_QUERY.value);
  streamUrl.searchParams.set(STREAM_PARAMETERS.runRef, request.runRef);
  streamUrl.searchParams.set(STREAM_PARAMETERS.token, request.streamToken);
  return {
    stream_url: streamUrl.href,
    stream_track: 'inbound_track',
    stream_codec: 'PCMU',
    stream_bidirectional_mode: 'rtp',
    stream_bidirectional_codec: 'PCMU',
    webhook_url: request.webhookUrl,
    webhook_url_method: 'POST',
    client_state: Buffer.from(request.runRef).toString('base64'),
  } as const;
}

/**
 * A message event's news: `message.sent`, then `message.finalized` with the recipient's status
 * (`delivered`; `delivery_failed` with its error; `sending_failed`, `expired`: never handed on;
 * `delivery_unconfirmed`: no receipt came, it stays sent).
 */
export function mapTelnyxMessageStatus(eventType: string, recipientStatus: string): ProviderMessageStatus | undefined {
  if (eventType === 'message.sent') return 'sent';
  if (eventType !== 'message.finalized') return undefined;
  if (recipientStatus === 'delivered') return 'delivered';
  if (recipientStatus === 'delivery_failed') return 'undelivered';
  if (recipientStatus === 'sending_failed' || recipientStatus === 'expired') return 'failed';
  if (recipientStatus === 'delivery_unconfirmed' || recipientStatus === 'sent') return 'sent';
  return undefined;
}

/** Telnyx's messaging error codes the platform names. */
const TELNYX_DELIVERY_ERRORS: Record<string, string> = {
  '40001': 'landline_or_unreachable_carrier',
  '40002': 'blocked',
  '40006': 'unreachable',
  '40008': 'undeliverable',
  '40300': 'filtered',
};

/** Telnyx's refusals of a new message, by error code. */
const TELNYX_MESSAGE_REFUSALS: Record<string, MessageRefusal> = {
  '10011': 'rate_limited',
  '40305': 'sender_cannot_text',
  '40013': 'sender_cannot_text',
  '40310': 'invalid_destination',
};

function rethrow(error: unknown, what: string): never {
  const status = (error as { status?: number }).status;
  const body = (error as { error?: { errors?: { code?: string }[] } }).error;
  const code = body?.errors?.[0]?.code;
  const refusal = (code && TELNYX_MESSAGE_REFUSALS[code]) || (status === 429 ? 'rate_limited' : undefined);
  throw new ProviderError(
    `Telnyx ${what} failed${status ? ` (HTTP ${status})` : ''}: ${error instanceof Error ? error.message : String(error)}`,
    status,
    refusal,
  );
}

export function telnyxAdapter(credentials: TelnyxCredentials, options: { apiBaseUrl?: string } = {}): TelephonyAdapter {
  const client = new Telnyx({
    apiKey: credentials.api_key,
    publicKey: credentials.public_key,
    baseURL: options.apiBaseUrl,
    timeout: 10_000,
    maxRetries: 0,
  });
  return {
    provider: 'telnyx',
    accountId: credentials.connection_id,
    calls: {
      // streaming_start's stream is a side channel of the call: closing it leaves the call up.
      streamEndsCall: false,

      async dial(request: DialRequest) {
        try {
          const response = await client.calls.dial({
            connection_id: credentials.connection_id,
            to: request.to,
            from: request.from,
            ...streamCommand({ ...request, webhookUrl: request.statusCallbackUrl }),
            // Runs alongside the stream (the agent greets at once); its events come to webhook_url.
            // detect_beep adds the greeting's end (the beep) to the verdict.
            answering_machine_detection: 'detect_beep',
          });
          const callId = response.data?.call_control_id;
          if (!callId) throw new ProviderError('Telnyx answered the dial without a call_control_id');
          return { callId };
        } catch (error) {
          if (error instanceof ProviderError) throw error;
          rethrow(error, 'dial');
        }
      },

      async hangUp(callId) {
        try {
          await client.calls.actions.hangup(callId, {});
        } catch (error) {
          // 422 "call has already ended" / 404: nothing left to hang up.
          const status = (error as { status?: number }).status;
          if (status === 404 || status === 422) return;
          rethrow(error, 'hang-up');
        }
      },

      async leaveVoicemail(callId, message) {
        // The stream stops first (the agent's audio would play over the message), then Telnyx speaks
        // it; the platform hangs up on `call.speak.ended`. command_ids make a retried webhook's repeat harmless.
        try {
          await client.calls.actions.stopStreaming(callId, { command_id: `voicemail-stream-${callId}` });
          await client.calls.actions.speak(callId, {
            payload: message,
            voice: 'female',
            command_id: `voicemail-speak-${callId}`,
          });
        } catch (error) {
          // 422 "call has already ended" / 404: the machine hung up meanwhile.
          const status = (error as { status?: number }).status;
          if (status === 404 || status === 422) return;
          rethrow(error, 'voicemail');
        }
      },

      whisperAs: 'audio',

      async transfer(callId, request) {
        // The stream stops (Telnyx keeps it through a transfer otherwise), then Call Control dials the
        // destination and bridges the caller once it answers (after `audio_url`, warm). The new leg's
        // events carry the run, marked, and come to the same signed webhook. If the destination does not
        // answer, the caller's call stays up for the platform to tell them.
        try {
          await client.calls.actions
            .stopStreaming(callId, { command_id: `transfer-stream-${callId}` })
            .catch((error: unknown) => {
              if ((error as { status?: number }).status !== 422) throw error;
            });
          await client.calls.actions.transfer(callId, {
            to: request.to,
            from: request.from,
            timeout_secs: request.timeoutSeconds,
            webhook_url: request.callbackUrl,
            target_leg_client_state: Buffer.from(`${TRANSFER_LEG_PREFIX}${request.runRef}`).toString('base64'),
            command_id: `transfer-${callId}`,
            ...(request.extension ? { send_digits_on_answer: request.extension } : {}),
            ...(request.whisper
              ? {
                  answering_machine_detection: 'detect' as const,
                  ...(request.whisper.audioUrl ? { audio_url: request.whisper.audioUrl } : {}),
                }
              : {}),
          });
        } catch (error) {
          rethrow(error, 'transfer');
        }
      },

      async sayAndHangUp(callId, message) {
        try {
          await client.calls.actions.speak(callId, { payload: message, voice: 'female', command_id: `say-${callId}` });
        } catch (error) {
          const status = (error as { status?: number }).status;
          if (status === 404 || status === 422) return;
          rethrow(error, 'speak');
        }
      },

      async reconnectStream(callId, target) {
        const {
          webhook_url: _webhook,
          webhook_url_method: _method,
          ...stream
        } = streamCommand({
          ...target,
          webhookUrl: target.statusCallbackUrl,
        });
        try {
          await client.calls.actions.startStreaming(callId, { ...stream, command_id: `resume-stream-${callId}` });
        } catch (error) {
          rethrow(error, 'stream');
        }
      },

      async answerInbound(answer: InboundAnswer, call?: InboundCall) {
        // Call Control answers by command; the webhook itself only needs a 2xx.
        const acknowledged = { contentType: 'application/json', body: '{}' };
        if (!call) return acknowledged;
        // A retried webhook repeats the same command: Telnyx runs a command_id once per call.
        const command_id = `${answer.action}-${call.callId}`;
        try {
          if (answer.action === 'connect') {
            await client.calls.actions.answer(call.callId, {
              ...streamCommand({ ...answer, webhookUrl: answer.statusCallbackUrl }),
              command_id,
            });
          } else {
            // A signalling-level refusal: busy for a line that cannot take the call now, rejected otherwise.
            await client.calls.actions.reject(call.callId, {
              cause: answer.reason === 'unavailable' ? 'USER_BUSY' : 'CALL_REJECTED',
              command_id,
            });
          }
        } catch (error) {
          // 422 "Call has already ended" (or 404): the caller hung up while the webhook was on its way.
          const status = (error as { status?: number }).status;
          if (status === 404 || status === 422) return { ...acknowledged, callEnded: true };
          rethrow(error, answer.action === 'connect' ? 'answer' : 'reject');
        }
        return acknowledged;
      },
    },

    callbacks: {
      async verifyCallback({ headers, rawBody }: CallbackRequest) {
        try {
          // Ed25519 over `<timestamp>|<body>`, timestamp within 5 minutes (the SDK's tolerance).
          await client.webhooks.unwrap(rawBody, {
            headers: Object.fromEntries(
              Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
            ),
          });
          return true;
        } catch {
          return false;
        }
      },

      parseStatus({ rawBody }: CallbackRequest) {
        const event = mapTelnyxEvent(JSON.parse(rawBody) as TelnyxEvent);
        return event?.runRef ? ({ ...event, runRef: event.runRef } as ProviderCallEvent) : undefined;
      },

      parseInbound({ rawBody }: CallbackRequest) {
        const event = JSON.parse(rawBody) as TelnyxEvent;
        const payload = event.data?.payload ?? {};
        // A new incoming call is parked until a command answers or rejects it; every other event of
        // the application (the hang-up of a rejected call, ...) needs no command.
        if (event.data?.event_type !== 'call.initiated' || payload.direction !== 'incoming') return undefined;
        const { call_control_id: callId, from, to } = payload;
        if (typeof callId !== 'string' || typeof from !== 'string' || typeof to !== 'string') return undefined;
        return { callId, from, to };
      },
    },

    messaging: {
      async send({ to, from, body, statusCallbackUrl }) {
        try {
          const response = await client.messages.send({
            to,
            from,
            text: body,
            type: 'SMS',
            webhook_url: statusCallbackUrl,
            use_profile_webhooks: false,
          });
          const id = response.data?.id;
          if (!id) throw new ProviderError('Telnyx answered the message without an id');
          return { messageId: id, status: 'queued', segments: Math.max(1, response.data?.parts ?? 1) };
        } catch (error) {
          if (error instanceof ProviderError) throw error;
          rethrow(error, 'message');
        }
      },

      parseMessageStatus({ rawBody }: CallbackRequest): MessageStatusEvent | undefined {
        const event = JSON.parse(rawBody) as TelnyxEvent;
        const payload = event.data?.payload ?? {};
        const recipients = Array.isArray(payload.to) ? (payload.to as { status?: string }[]) : [];
        const status = mapTelnyxMessageStatus(event.data?.event_type ?? '', String(recipients[0]?.status ?? ''));
        if (typeof payload.id !== 'string' || !status) return undefined;
        const errors = Array.isArray(payload.errors) ? (payload.errors as { code?: string }[]) : [];
        const errorCode =
          status === 'undelivered' || status === 'failed' ? String(errors[0]?.code ?? '') || null : null;
        return {
          messageId: payload.id,
          status,
          errorCode,
          errorReason: errorCode ? (TELNYX_DELIVERY_ERRORS[errorCode] ?? 'undeliverable') : null,
          timestamp: event.data?.occurred_at ?? new Date().toISOString(),
        };
      },

      parseInboundMessage({ rawBody }: CallbackRequest) {
        const event = JSON.parse(rawBody) as TelnyxEvent;
        const payload = event.data?.payload ?? {};
        if (event.data?.event_type !== 'message.received') return undefined;
        const from = (payload.from as { phone_number?: unknown } | undefined)?.phone_number;
        const to = (Array.isArray(payload.to) ? (payload.to[0] as { phone_number?: unknown }) : undefined)
          ?.phone_number;
        if (typeof payload.id !== 'string' || typeof from !== 'string' || typeof to !== 'string') return undefined;
        return {
          messageId: payload.id,
          from,
          to,
          body: typeof payload.text === 'string' ? payload.text : '',
          segments: Math.max(1, Number(payload.parts) || 1),
        };
      },
    },

    numbers: {
      async ownsNumber(e164) {
        try {
          const page = await client.phoneNumbers.list({ filter: { phone_number: e164 } });
          return page.data.some((number) => number.phone_number === e164);
        } catch (error) {
          rethrow(error, 'number lookup');
        }
      },

      async searchNumbers(country, type) {
        if (type !== 'local' && type !== 'mobile' && type !== 'toll_free') return [];
        try {
          const found = await client.availablePhoneNumbers.list({
            filter: { country_code: country, phone_number_type: type, features: ['voice'], limit: 50 },
          });
          return (found.data ?? []).flatMap((number) =>
            number.phone_number
              ? [
                  {
                    phone_number: number.phone_number,
                    country_code: country,
                    number_type: type,
                    // The number's features as Telnyx lists them (`voice`, `sms`, `mms`, `fax`, `emergency`, …).
                    capabilities: (number.features ?? []).flatMap((feature) => (feature.name ? [feature.name] : [])),
                  },
                ]
              : [],
          );
        } catch (error) {
          rethrow(error, 'number search');
        }
      },

      async buyNumber(e164, { regulatoryBundleId }) {
        // Incoming calls reach the Call Control application's webhook: the connection is the voice URL.
        try {
          const order = await client.numberOrders.create({
            connection_id: credentials.connection_id,
            phone_numbers: [{ phone_number: e164, ...(regulatoryBundleId ? { bundle_id: regulatoryBundleId } : {}) }],
          });
          const id = order.data?.phone_numbers?.[0]?.id ?? order.data?.id;
          if (!id) throw new ProviderError('Telnyx answered the number order without an id');
          // A number order does not list the number's features (its search does).
          return { providerNumberId: id, capabilities: null };
        } catch (error) {
          if (error instanceof ProviderError) throw error;
          rethrow(error, 'number purchase');
        }
      },

      async releaseNumber(providerNumberId) {
        try {
          await client.phoneNumbers.delete(providerNumberId);
        } catch (error) {
          if ((error as { status?: number }).status === 404) return;
          rethrow(error, 'number release');
        }
      },
    },

    regulatoryReview: telnyxRegulatoryReview(client, credentials.connection_id, rethrow),
  };
}
