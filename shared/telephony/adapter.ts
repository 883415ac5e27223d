import type { NumberType } from '../domain/number-pricing.ts';

/**
 * The telephony provider adapter: what the platform asks of a programmable-voice provider (Twilio,
 * Telnyx). Each adapter speaks its provider's real API through the provider's official SDK; the
 * platform code above it never names a provider.
 */

/** A provider's view of a call, mapped onto the platform's vocabulary. */
export type ProviderCallStatus = 'ringing' | 'answered' | 'completed' | 'busy' | 'no-answer' | 'voicemail' | 'failed';

export interface DialRequest {
  to: string;
  from: string;
  /** `<orgId>.<agentId>.<runId>`: comes back in the media stream and in every status callback. */
  runRef: string;
  /** The media service's Media Streams WebSocket (wss://…/media). */
  streamUrl: string;
  /** The per-call credential the media service demands before it accepts the stream (stream-token.ts). */
  streamToken: string;
  /** Where the provider reports the call's progress (the platform's signed callback endpoint). */
  statusCallbackUrl: string;
}

/** A webhook request as received: the URL the provider signed, its headers, the raw body. */
export interface CallbackRequest {
  url: string;
  headers: Record<string, string | undefined>;
  rawBody: string;
}

export interface ProviderStatusEvent {
  callId: string;
  runRef: string;
  status: ProviderCallStatus;
  /** ISO time of the event at the provider. */
  timestamp: string;
}

/** An incoming call as the provider's voice webhook describes it. */
export interface InboundCall {
  callId: string;
  from: string;
  to: string;
}

/** What the platform answers an incoming call with. */
export type InboundAnswer =
  | { action: 'connect'; streamUrl: string; runRef: string; streamToken: string; statusCallbackUrl: string }
  | {
      action: 'reject';
      /** `not_in_service`: no such line; `unavailable`: the line exists but cannot take the call now. */
      reason: 'not_in_service' | 'unavailable';
      /** Said to the caller where the provider answers with speech (Twilio). */
      message: string;
    };

/** The voice webhook's response to the provider. */
export interface InboundResponse {
  contentType: string;
  body: string;
  /** The provider refused the command because the call is over (the caller hung up meanwhile). */
  callEnded?: boolean;
}

/**
 * Translation between a provider's media stream frames and the canonical frames the media service
 * handles (Twilio Media Streams JSON: `connected`, `start` with `customParameters`, `media`,
 * `mark`, `clear`, `stop`).
 */
export interface MediaFrameCodec {
  /** A frame from the provider → canonical frame. `streamQuery` is the stream URL's query string. */
  decode(frame: Record<string, unknown>, streamQuery: URLSearchParams): Record<string, unknown>;
  /** A canonical outbound frame (`media`, `mark`, `clear`) → the provider's frame. */
  encode(frame: Record<string, unknown>): Record<string, unknown>;
}

export interface TelephonyAdapter {
  readonly provider: 'twilio' | 'telnyx';
  /** The provider account (rate limits are per account). */
  readonly accountId: string;
  dial(request: DialRequest): Promise<{ callId: string }>;
  /** Ends a call in any state (ringing calls are cancelled). */
  hangUp(callId: string): Promise<void>;
  /** True when the request carries the provider's valid, fresh signature. */
  verifyCallback(request: CallbackRequest): Promise<boolean>;
  /** The call status a verified callback reports, or undefined for events the platform ignores. */
  parseStatus(request: CallbackRequest): ProviderStatusEvent | undefined;
  /** The incoming call a verified voice webhook announces; undefined for any other event. */
  parseInbound(request: CallbackRequest): InboundCall | undefined;
  /**
   * Connects (or politely rejects) an incoming call, by the webhook's response (Twilio TwiML) or
   * by a command (Telnyx Call Control); returns the webhook's response, and `callEnded` when the
   * provider says the caller has already hung up. Without `call` (the webhook announced something
   * else) it only answers the webhook.
   */
  answerInbound(answer: InboundAnswer, call?: InboundCall): Promise<InboundResponse>;
  /** Numbers the account owns (a caller id must be one of them). */
  ownsNumber(e164: string): Promise<boolean>;
  /** The provider's stock of numbers for sale. */
  searchNumbers(country: string, type: NumberType): Promise<AvailableNumber[]>;
  /** Buys a number and points its incoming calls at `voiceUrl`; a regulated number needs its approved bundle. */
  buyNumber(
    e164: string,
    options: { voiceUrl: string; regulatoryBundleId?: string },
  ): Promise<{ providerNumberId: string }>;
  releaseNumber(providerNumberId: string): Promise<void>;
  /**
   * Submits the subscriber's data for a regulated number (a Polish mobile) to the provider's
   * regulatory review; the number is bought once the bundle is approved.
   */
  submitRegulatoryBundle(request: {
    country: string;
    type: NumberType;
    endUser: Record<string, unknown>;
    email: string;
  }): Promise<{ bundleId: string }>;
}

export interface AvailableNumber {
  phone_number: string;
  country_code: string;
  number_type: NumberType;
  capabilities: string[];
}

/** The provider refused or failed a request; `retryable` when nothing happened and a retry may succeed. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Streams carry the run reference and the per-call credential under these parameter names. */
export const STREAM_PARAMETERS = { runRef: 'run_ref', token: 'stream_token' } as const;
