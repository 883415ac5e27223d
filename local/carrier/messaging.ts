import { simulatedTextFate, TEXT_TIMING_MS } from './callee-directory.ts';

/** Waits `ms`, or less when `signal` aborts (the carrier stops); no timer is left behind. */
type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * The simulated carrier's messaging: text messages leave an account's number, are split into
 * segments, and meet the fate the callee directory gives their destination (delivered, a late
 * receipt or none, a landline that cannot take a text); each account may send only so many a
 * second. The wire layers (twilio-wire.ts, telnyx-wire.ts) turn it into the Twilio Messages API and
 * Telnyx Messaging with their signed status callbacks, events and inbound webhooks.
 */

/** GSM 03.38's basic characters and its extension table (each of those costs two septets). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

/**
 * How a network splits a text: GSM-7 when every character is in its alphabet (160 septets alone,
 * 153 a segment when concatenated), else UCS-2 (70 characters alone, 67 a segment; a character
 * outside the basic plane takes two).
 */
export function textSegments(body: string): { encoding: 'GSM-7' | 'UCS-2'; segments: number } {
  let septets = 0;
  let gsm = true;
  for (const character of body) {
    if (GSM_BASIC.includes(character)) septets += 1;
    else if (GSM_EXTENDED.includes(character)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return { encoding: 'GSM-7', segments: septets <= 160 ? 1 : Math.ceil(septets / 153) };
  const units = body.length; // UTF-16 code units: what UCS-2 (UTF-16 on the air) counts
  return { encoding: 'UCS-2', segments: units <= 70 ? 1 : Math.ceil(units / 67) };
}

/** A text as the carrier keeps it (for `GET /_simulator/messages`). */
export interface CarrierMessage {
  id: string;
  /** The account's key at the wire (a Twilio Account SID, a Telnyx connection id). */
  account: string;
  direction: 'outbound' | 'inbound';
  from: string;
  to: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  /** The carrier's own word for where it is (`queued`, `sent`, `delivered`, `undelivered`, `received`). */
  status: string;
  created_at: number;
}

/** How a wire reports an outbound text's progress (status callbacks, or events). */
export interface MessageLine {
  /** Handed to the destination's network. */
  sent(): Promise<void>;
  /** The destination's handset confirmed it (the delivery receipt). */
  delivered(): Promise<void>;
  /** The destination cannot take a text (a landline). */
  undeliverable(why: 'landline'): Promise<void>;
}

/** Texts a second an account may send (Twilio's and Telnyx's queues answer 429 above their account limit). */
export const DEFAULT_MESSAGES_PER_SECOND = 10;

/** A token bucket of one second's sends, refilled continuously. */
class SendBucket {
  tokens: number;
  refilledAt = Date.now();
  rateLimited = 0;
  constructor(public perSecond: number) {
    this.tokens = Math.max(1, perSecond);
  }

  take(now: number): boolean {
    const capacity = Math.max(1, this.perSecond);
    this.tokens = Math.min(capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) {
      this.rateLimited += 1;
      return false;
    }
    this.tokens -= 1;
    return true;
  }
}

export class CarrierMessaging {
  /** Every text, both ways, in order. */
  readonly messages: CarrierMessage[] = [];
  private readonly buckets = new Map<string, SendBucket>();

  /** `track` follows a text's progress as the carrier follows a call's (idle waits for it, stop aborts it). */
  constructor(
    private readonly track: (stop: AbortController, work: Promise<void>) => void,
    private readonly wait: Wait,
  ) {}

  private bucket(account: string): SendBucket {
    let bucket = this.buckets.get(account);
    if (!bucket) this.buckets.set(account, (bucket = new SendBucket(DEFAULT_MESSAGES_PER_SECOND)));
    return bucket;
  }

  /** An account's send rate and how often it was refused; `perSecond` changes the rate. */
  limits(account: string, perSecond?: number): { messages_per_second: number; messages_rate_limited: number } {
    const bucket = this.bucket(account);
    if (perSecond !== undefined && Number.isFinite(perSecond) && perSecond >= 0) {
      bucket.perSecond = perSecond;
      bucket.tokens = Math.min(bucket.tokens, Math.max(0, perSecond));
    }
    return { messages_per_second: bucket.perSecond, messages_rate_limited: bucket.rateLimited };
  }

  /** Whether the account may send one more text now (false, and counted, above its rate). */
  admit(account: string): boolean {
    return this.bucket(account).take(Date.now());
  }

  /** An outbound text, accepted (`queued`); its progress goes to `line` as the network moves it on. */
  send(fields: Pick<CarrierMessage, 'id' | 'account' | 'from' | 'to' | 'body'>, line: MessageLine): CarrierMessage {
    const message: CarrierMessage = {
      ...fields,
      direction: 'outbound',
      ...textSegments(fields.body),
      status: 'queued',
      created_at: Date.now(),
    };
    this.messages.push(message);
    const stop = new AbortController();
    this.track(stop, this.deliver(message, line, stop.signal));
    return message;
  }

  /** A text from a phone to an account's number (the wire announces it to the platform). */
  receive(fields: Pick<CarrierMessage, 'id' | 'account' | 'from' | 'to' | 'body'>): CarrierMessage {
    const message: CarrierMessage = {
      ...fields,
      direction: 'inbound',
      ...textSegments(fields.body),
      status: 'received',
      created_at: Date.now(),
    };
    this.messages.push(message);
    return message;
  }

  private async deliver(message: CarrierMessage, line: MessageLine, stopped: AbortSignal): Promise<void> {
    await this.wait(TEXT_TIMING_MS.sent, stopped);
    if (stopped.aborted) return;
    const fate = simulatedTextFate(message.to);
    message.status = 'sent';
    await line.sent();
    if (fate === 'no_receipt') return;
    await this.wait(fate === 'late_receipt' ? TEXT_TIMING_MS.lateReceipt : TEXT_TIMING_MS.delivered, stopped);
    if (stopped.aborted) return;
    if (fate === 'landline') {
      message.status = 'undelivered';
      return line.undeliverable('landline');
    }
    message.status = 'delivered';
    await line.delivered();
  }
}
