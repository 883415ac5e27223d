import { randomBytes, randomUUID } from 'node:crypto';
import type { CarrierCall } from './carrier.ts';
import type { TelnyxAccount } from './telnyx-accounts.ts';

/** A call at the local Telnyx: a leg under Call Control, as its commands and events see it. */
export interface TelnyxCall extends CarrierCall {
  legId: string;
  sessionId: string;
  account: TelnyxAccount;
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
  hangupSource: 'caller' | 'callee';
  answered: (value: 'answered' | 'rejected') => void;
  /** `command_id`s already carried out: Telnyx ignores a command repeated with the same one. */
  commandIds: Set<string>;
}

export const stringOr = <T>(value: unknown, otherwise: T) => (typeof value === 'string' ? value : otherwise);

/** Stream parameters of a dial or an answer command. */
export const streamOf = (body: Record<string, unknown>): TelnyxCall['stream'] =>
  typeof body.stream_url === 'string' ? { url: body.stream_url } : null;

/** A new call leg of `account`: its own ids, no stream, no detection, not yet answered. */
export const newTelnyxCall = (
  account: TelnyxAccount,
  fields: Pick<TelnyxCall, 'from' | 'to' | 'direction' | 'state' | 'hangupSource'>,
): TelnyxCall => ({
  id: `v3:${randomBytes(16).toString('base64url')}`,
  legId: randomUUID(),
  sessionId: randomUUID(),
  account,
  ...fields,
  webhookUrl: null,
  clientState: null,
  stream: null,
  detectMachine: false,
  detectBeep: false,
  streamStop: new AbortController(),
  streamEndedAt: null,
  hangUp: new AbortController(),
  answered: () => {},
  commandIds: new Set(),
});
