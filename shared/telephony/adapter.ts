import type { MachineVerdict } from '../domain/run.ts';
import type { NumberType } from '../domain/number-pricing.ts';
import type { EndUserData, ReviewVerdict } from '../domain/regulatory-review.ts';

/**
 * The telephony provider adapter: what the platform asks of a programmable-voice provider (Twilio,
 * Telnyx). Each adapter speaks its provider's real API through the provider's official SDK; the
 * platform code above it never names a provider.
 */

/** A provider's view of a call, mapped onto the platform's vocabulary. */
export type ProviderCallStatus = 'ringing' | 'answered' | 'completed' | 'busy' | 'no-answer' | 'failed';

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
  /**
   * What the agent does on an answering machine, which decides how detection runs (always
   * asynchronously: the stream opens at once): `hang_up` needs only the verdict, `leave_message`
   * also the end of the greeting (the beep).
   */
  onMachine: 'hang_up' | 'leave_message';
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

export type GreetingState = 'ended' | 'pending' | 'unknown';

/** The provider's answering-machine detection result on an outbound call. */
export interface MachineDetectionEvent {
  callId: string;
  runRef: string;
  verdict: MachineVerdict;
  /**
   * The machine's greeting: `ended` (its beep, or its end when it has none: a message left now is
   * recorded), `pending` (the provider reports its end later), `unknown` (no report of it follows:
   * a fax, or a person).
   */
  greeting: GreetingState;
  /** The provider heard the beep. */
  beep: boolean;
  /** The provider's own words for it (Twilio `AnsweredBy`, Telnyx `result`), for the run's logs. */
  detail: string;
  timestamp: string;
}

/** The provider finished speaking the voicemail message (Telnyx `call.speak.ended`): the call is hung up. */
export interface MessageSpokenEvent {
  callId: string;
  runRef: string;
  messageSpoken: true;
  timestamp: string;
}

/** The leg of a transfer to a person (Telnyx: its own call, tagged with the run): answered, a machine, or over. */
export interface TransferLegEvent {
  /** The transfer leg's call id. */
  callId: string;
  runRef: string;
  transferLeg: 'answered' | 'machine' | 'ended';
  /** `ended`: how (completed after an answer; busy, no-answer, failed without one). */
  status?: ProviderCallStatus;
  timestamp: string;
}

/** Anything a verified status callback reports that the platform acts on. */
export type ProviderCallEvent = ProviderStatusEvent | MachineDetectionEvent | MessageSpokenEvent | TransferLegEvent;

/** A live call handed to a person (the agent's `transfer_call`, the control API's `transfer`). */
export interface TransferRequest {
  runRef: string;
  /** E.164, or a SIP URI. */
  to: string;
  /** The caller id the destination sees. */
  from: string;
  /** Keys pressed once the destination answers. */
  extension?: string;
  timeoutSeconds: number;
  /**
   * Warm: what the person answering hears before the caller is connected (a machine answering is
   * hung up on). Twilio says `text` (its whisper callback answers with it); Telnyx plays `audioUrl`.
   */
  whisper: { text: string; audioUrl: string | null } | null;
  /** Where the provider reports the transfer's steps (signed, like status callbacks; carries the run). */
  callbackUrl: string;
}

/** Where a call's media goes: the media service, with the run and its credential. */
export interface StreamTarget {
  streamUrl: string;
  runRef: string;
  streamToken: string;
  statusCallbackUrl: string;
}

/** A Twilio transfer's step, from its signed callback: the whisper to play, or the dial's outcome. */
export type TransferStep =
  | { runRef: string; step: 'whisper'; machine: boolean }
  | { runRef: string; step: 'outcome'; status: ProviderCallStatus; legSeconds: number };

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

/**
 * Placing and steering calls: dialing, hanging up, answering incoming calls, and what a live call
 * can be made to do (a voicemail message, a transfer, speech, a new media stream).
 */
export interface CallControl {
  /**
   * Whether the media stream's end ends the call. Twilio: yes, `<Connect><Stream>` is the call's
   * last verb. Telnyx: no, the call stays up (and billed) until it is hung up through Call Control.
   */
  readonly streamEndsCall: boolean;
  dial(request: DialRequest): Promise<{ callId: string }>;
  /** Ends a call in any state (ringing calls are cancelled). */
  hangUp(callId: string): Promise<void>;
  /**
   * Leaves `message` on the answering machine of a call whose greeting is over, then hangs up:
   * the media stream is stopped (the provider closes it) and the provider speaks the message with
   * its own text-to-speech.
   */
  leaveVoicemail(callId: string, message: string): Promise<void>;
  /**
   * How a warm transfer's message reaches the person answering: as text the provider speaks
   * (Twilio), or as audio at a URL (Telnyx's `audio_url`).
   */
  readonly whisperAs: 'text' | 'audio';
  /**
   * Hands the live call to a person: the media stream stops and the provider dials the
   * destination, connecting the caller once it answers (after the whisper, warm). Its steps come
   * back to `request.callbackUrl`.
   */
  transfer(callId: string, request: TransferRequest): Promise<void>;
  /** Says `message` on a live call without a media stream, then the call is hung up (Telnyx: on `call.speak.ended`). */
  sayAndHangUp(callId: string, message: string): Promise<void>;
  /** Connects a live call without a stream to the media service again (the agent takes it back). */
  reconnectStream(callId: string, target: StreamTarget): Promise<void>;
  /**
   * Connects (or politely rejects) an incoming call, by the webhook's response (Twilio TwiML) or
   * by a command (Telnyx Call Control); returns the webhook's response, and `callEnded` when the
   * provider says the caller has already hung up. Without `call` (the webhook announced something
   * else) it only answers the webhook.
   */
  answerInbound(answer: InboundAnswer, call?: InboundCall): Promise<InboundResponse>;
}

/** Reading the provider's webhooks: their signature, and what they report. */
export interface CallbackParsing {
  /** True when the request carries the provider's valid, fresh signature. */
  verifyCallback(request: CallbackRequest): Promise<boolean>;
  /** What a verified status callback reports, or undefined for events the platform ignores. */
  parseStatus(request: CallbackRequest): ProviderCallEvent | undefined;
  /** The incoming call a verified voice webhook announces; undefined for any other event. */
  parseInbound(request: CallbackRequest): InboundCall | undefined;
}

/**
 * A transfer's own callbacks (Twilio: the whisper URL and the `<Dial>` action, answered with
 * TwiML). A provider that reports transfers as call events (Telnyx) has none.
 */
export interface TransferCallbacks {
  /** A verified transfer callback's step. */
  parseTransferStep(request: CallbackRequest): TransferStep | undefined;
  /**
   * The answer to a transfer step: say something then go on (whisper) or hang up (outcome), or
   * connect the caller's media to the agent again (an outcome nobody took, the agent continuing).
   */
  answerTransferStep(step: TransferStep, next: { say: string } | { reconnect: StreamTarget } | null): InboundResponse;
}

/** A number the provider sold: its id there, and what it can do as the provider's answer reports it. */
export interface BoughtNumber {
  providerNumberId: string;
  /** `voice`, `sms`, `mms`, `fax`; null when the answer does not say (Telnyx's number order: its search does). */
  capabilities: string[] | null;
}

/** The account's numbers and the provider's stock of numbers for sale. */
export interface NumberInventory {
  /** Numbers the account owns (a caller id must be one of them). */
  ownsNumber(e164: string): Promise<boolean>;
  /** The provider's stock of numbers for sale. */
  searchNumbers(country: string, type: NumberType): Promise<AvailableNumber[]>;
  /**
   * Buys a number and points its incoming calls at `voiceUrl` (and its texts at `messagingUrl`,
   * where the number carries that setting: Twilio's SmsUrl); a regulated number needs its approved bundle.
   */
  buyNumber(
    e164: string,
    options: { voiceUrl: string; messagingUrl?: string; regulatoryBundleId?: string },
  ): Promise<BoughtNumber>;
  releaseNumber(providerNumberId: string): Promise<void>;
}

/** The scan of the subscriber's identity document, opened for the provider. */
export interface RegulatoryDocument {
  fileName: string;
  contentType: string;
  data: Buffer;
}

/**
 * The provider's regulatory review of a regulated number (a Polish mobile): Twilio's Regulatory
 * Compliance Bundles (EndUser + SupportingDocument, submitted for review, then the number is
 * bought with the approved bundle) and Telnyx's requirement groups (the number order placed with
 * the group, completed by Telnyx once it approves).
 */
export interface RegulatoryReview {
  /** Submits the subscriber's data and document; the provider's reference of the review (Twilio: the Bundle; Telnyx: the number order). */
  submitForReview(request: {
    e164: string;
    country: string;
    type: NumberType;
    endUser: EndUserData;
    /** The customer's own id of the subscriber (the purchase's `end_user_id`), named in the review (Twilio's friendly names). */
    endUserId: number;
    document: RegulatoryDocument;
    /** Where the provider's news of the review goes (Twilio requires one per bundle). */
    email: string;
    /** Twilio's bundle StatusCallback (signed); Telnyx sends its number-order events to the account's webhook instead. */
    statusCallbackUrl: string;
    /** The platform's reference of the number and its subscriber at the provider (Telnyx's customer_reference). */
    customerReference: string;
  }): Promise<{ reference: string }>;
  /** The review as the provider has it now; an approval that already bought the number (Telnyx's order) names it. */
  reviewStatus(reference: string): Promise<ReviewVerdict & { bought?: BoughtNumber }>;
  /** The review a signed callback is about (Twilio's bundle StatusCallback, Telnyx's `number_order.complete`). */
  parseReviewCallback(request: CallbackRequest): { reference: string; e164?: string; reason?: string } | undefined;
}

/** Where a text message is, in the platform's words (Twilio `MessageStatus`, Telnyx's recipient status). */
export type ProviderMessageStatus = 'queued' | 'sent' | 'delivered' | 'undelivered' | 'failed';

export interface SendMessageRequest {
  to: string;
  /** The sending number: the account must own it, with the `sms` capability. */
  from: string;
  body: string;
  /** Where the provider reports the message's progress (signed; carries the run and the message). */
  statusCallbackUrl: string;
}

/** A text message the provider accepted. */
export interface SentMessage {
  messageId: string;
  status: ProviderMessageStatus;
  /** How many segments the provider split it into (each billed). */
  segments: number;
}

/** A message's progress, from a verified status callback (the run and message are in its URL). */
export interface MessageStatusEvent {
  messageId: string;
  status: ProviderMessageStatus;
  /** The provider's error code of a failed delivery (Twilio `ErrorCode` 30006, Telnyx `40001`), else null. */
  errorCode: string | null;
  /** What the code means, for the run and the model (`landline_or_unreachable`, …), else null. */
  errorReason: string | null;
  timestamp: string;
}

/** A text from a phone to one of the account's numbers, as the provider's messaging webhook announces it. */
export interface InboundMessage {
  messageId: string;
  from: string;
  to: string;
  body: string;
  segments: number;
}

/**
 * Text messages (Twilio Programmable Messaging, Telnyx Messaging): sending from one of the
 * account's numbers, and reading the provider's signed message webhooks (status and incoming).
 * A refusal is a ProviderError with its `refusal` (the provider's rate limit, a sender that cannot
 * text, a destination that is no number).
 */
export interface Messaging {
  send(request: SendMessageRequest): Promise<SentMessage>;
  /** A verified message status callback's news; undefined for anything else. */
  parseMessageStatus(request: CallbackRequest): MessageStatusEvent | undefined;
  /** The incoming text a verified messaging webhook announces; undefined for anything else. */
  parseInboundMessage(request: CallbackRequest): InboundMessage | undefined;
}

/**
 * A programmable-voice provider account, by concern: each part is what the provider offers, and a
 * part it does not offer is absent rather than a stub.
 */
export interface TelephonyAdapter {
  readonly provider: 'twilio' | 'telnyx';
  /** The provider account (rate limits are per account). */
  readonly accountId: string;
  readonly calls: CallControl;
  readonly callbacks: CallbackParsing;
  readonly numbers: NumberInventory;
  readonly messaging?: Messaging;
  readonly transferCallbacks?: TransferCallbacks;
  readonly regulatoryReview?: RegulatoryReview;
}

export interface AvailableNumber {
  phone_number: string;
  country_code: string;
  number_type: NumberType;
  capabilities: string[];
}

/**
 * Why a provider refused a text: its rate limit (Twilio 429/20429, Telnyx 429/10011: nothing was
 * sent, a retry later may succeed), a sender number that cannot text (Twilio 21606, Telnyx 40305),
 * a destination that is no valid number (Twilio 21211/21614, Telnyx 40310).
 */
export type MessageRefusal = 'rate_limited' | 'sender_cannot_text' | 'invalid_destination';

/** The provider refused or failed a request. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly status?: number,
    readonly refusal?: MessageRefusal,
  ) {
    super(message);
  }
}

/** Streams carry the run reference and the per-call credential under these parameter names. */
export const STREAM_PARAMETERS = { runRef: 'run_ref', token: 'stream_token' } as const;
