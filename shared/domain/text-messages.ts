/**
 * Text messages of a run (SMS sent during a call, and the caller's replies): their record, how a
 * provider's status report moves them on, what they cost, and the rules a send must pass. Pure:
 * the repository (repositories/run-sms.ts) stores them, the service (services/text-messages.ts)
 * sends them.
 */

/**
 * `queued` accepted by the provider; `sent` handed to the network; `delivered` confirmed by the
 * handset; `undelivered` the network could not deliver it (a landline, an unreachable phone);
 * `failed` never handed on (refused by the provider); `received` a text from the caller.
 */
export const SMS_STATUSES = ['queued', 'sent', 'delivered', 'undelivered', 'failed', 'received'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

export interface SmsStatusChange {
  status: SmsStatus;
  timestamp: string;
  error_code: string | null;
}

/** Who asked for an outbound text: the agent's model (`send_sms`), or the live-control API. */
export type SmsSender = 'agent' | 'api';

/** A text message of a run, as stored and (without `provider_message_id`) as the API shows it. */
export interface RunSmsRecord {
  id: string;
  direction: 'outbound' | 'inbound';
  /** When it was queued (outbound) or received (inbound). */
  timestamp: string;
  from: string;
  to: string;
  body: string;
  status: SmsStatus;
  status_history: SmsStatusChange[];
  error_code: string | null;
  /** Why it was not delivered (the provider's code named: `landline_or_unreachable_carrier`, …), else null. */
  error_reason: string | null;
  segments: number;
  cost_usd: number;
  sent_by: SmsSender | null;
  provider_message_id: string | null;
}

/** What a message segment costs the organization (the providers bill by segment, delivered or not). */
export const SMS_USD_PER_SEGMENT = 0.0079;

export const smsCost = (segments: number): number => Math.round(segments * SMS_USD_PER_SEGMENT * 10_000) / 10_000;

/** How far along a text is: a report moves it on only to a later step (a late or repeated report changes nothing). */
const STEP: Record<SmsStatus, number> = { queued: 0, sent: 1, delivered: 2, undelivered: 2, failed: 2, received: 2 };

/** The statuses a text may be in for `reported` to replace it (the condition of the update). */
export const statusesBefore = (reported: SmsStatus): SmsStatus[] =>
  SMS_STATUSES.filter((status) => STEP[status] < STEP[reported]);

/**
 * A text's history in the order of its steps (a late report is stored after the ones it came
 * behind), by time within a step: the clocks of the platform and the provider differ.
 */
export const historyInOrder = (history: readonly SmsStatusChange[]): SmsStatusChange[] =>
  [...history].sort(
    (a, b) => STEP[a.status] - STEP[b.status] || (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0),
  );

/** The billing of a run's texts: its outbound messages, their segments and cost (kept after the run's erasure). */
export function smsTotals(messages: readonly Pick<RunSmsRecord, 'direction' | 'segments' | 'cost_usd'>[]): {
  sms_messages: number;
  sms_segments: number;
  sms_usd: number;
} {
  const outbound = messages.filter((message) => message.direction === 'outbound');
  return {
    sms_messages: outbound.length,
    sms_segments: outbound.reduce((sum, message) => sum + message.segments, 0),
    sms_usd: Math.round(outbound.reduce((sum, message) => sum + message.cost_usd, 0) * 10_000) / 10_000,
  };
}

/**
 * How long after a call is answered a text from its caller is that call's reply (recorded on its
 * run, `sms.received`): a day. Later, or from a number the organization has had no call with, a
 * text belongs to no run and is not kept (see receiveText in services/inbound-texts.ts).
 */
export const REPLY_WINDOW_SECONDS = 86_400;

/** The longest reply kept (the providers' own cap: Twilio 1,600 characters; Telnyx's is smaller). */
export const MAX_REPLY_CHARS = 1_600;

/** A text from the caller as the run records it: `received`, free to the organization (only sent texts are billed). */
export function receivedSms(
  message: { messageId: string; from: string; to: string; body: string; segments: number },
  id: string,
  receivedAt: string,
): RunSmsRecord {
  return {
    id,
    direction: 'inbound',
    timestamp: receivedAt,
    from: message.from,
    to: message.to,
    body: message.body.slice(0, MAX_REPLY_CHARS),
    status: 'received',
    status_history: [{ status: 'received', timestamp: receivedAt, error_code: null }],
    error_code: null,
    error_reason: null,
    segments: message.segments,
    cost_usd: 0,
    sent_by: null,
    provider_message_id: message.messageId,
  };
}

/** What the agent's model is given of a caller's text during the call: a turn of the caller's, in these words. */
export const callerTextTurn = (body: string): string => `(The caller texted: ${body})`;

/** Texts an organization may send a minute, over all its calls (a runaway agent cannot flood its callers). */
export const SMS_PER_MINUTE_PER_ORGANIZATION = 30;

/** Why a text was not sent: each is told to the model (or the API caller) in these words. */
export type SmsRefusal =
  | 'disabled'
  | 'cap_reached'
  | 'template_unknown'
  | 'free_text_not_allowed'
  | 'empty'
  | 'do_not_call'
  | 'calling_hours'
  | 'sender_cannot_text'
  | 'rate_limited'
  | 'invalid_destination'
  | 'call_not_live'
  | 'unavailable';

export const SMS_REFUSALS: Record<SmsRefusal, string> = {
  disabled: 'Text messages are not enabled for this agent (workflow_configurations.sms).',
  cap_reached: 'The limit of text messages for this call has been reached.',
  template_unknown: 'No such message template.',
  free_text_not_allowed: 'Only the configured templates may be sent; free text is not allowed.',
  empty: 'The message is empty.',
  do_not_call: 'The number is on the Do-not-call list: it gets no text messages.',
  calling_hours: 'It is outside 08:00-21:00 where the number is: no text messages now.',
  sender_cannot_text: 'The sending number cannot send text messages (it has no sms capability).',
  rate_limited: 'Too many text messages right now; try again in a minute.',
  invalid_destination: 'The destination is not a number that can take a text.',
  call_not_live: 'The call has ended.',
  unavailable: 'The text message could not be sent right now.',
};

/** What is known when a text is asked for: the rules below decide in this order. */
export interface SmsSendFacts {
  enabled: boolean;
  sentThisCall: number;
  maxPerCall: number;
  onDoNotCall: boolean;
  insideCallingHours: boolean;
  /** The sending number's capabilities, where the platform knows them (a number it sold); null: unknown. */
  senderCapabilities: readonly string[] | null;
}

/** The first rule a text breaks, or null when it may be sent (the organization's rate is taken after). */
export function smsRefusal(facts: SmsSendFacts): SmsRefusal | null {
  if (!facts.enabled) return 'disabled';
  if (facts.sentThisCall >= facts.maxPerCall) return 'cap_reached';
  if (facts.onDoNotCall) return 'do_not_call';
  if (!facts.insideCallingHours) return 'calling_hours';
  if (facts.senderCapabilities && !facts.senderCapabilities.includes('sms')) return 'sender_cannot_text';
  return null;
}

/**
 * Fills a template: `{{initial_context.<key>}}` from the call's context, `{{gathered_context.<key>}}`
 * from what the agent gathered so far; an unknown key becomes ''.
 */
export function renderSmsTemplate(
  template: string,
  context: { initial: Record<string, unknown>; gathered: Record<string, unknown> },
): string {
  return template.replace(
    /\{\{\s*(initial_context|gathered_context)\.([A-Za-z0-9_.-]+)\s*\}\}/g,
    (_match, scope: string, key: string) => {
      const value = (scope === 'initial_context' ? context.initial : context.gathered)[key];
      if (value === undefined || value === null) return '';
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    },
  );
}

/** A new outbound text's id: time-ordered (the run's texts list in the order they were sent). */
export const newSmsId = (now: number, random: string): string => `sms_${now.toString(36).padStart(9, '0')}${random}`;
