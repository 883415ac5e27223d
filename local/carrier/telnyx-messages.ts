import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isLoopback, sendJson } from './http.ts';
import type { CarrierMessage, CarrierMessaging } from './messaging.ts';
import type { NumberInventory } from './number-inventory.ts';
import { telnyxError } from './telnyx-numbers.ts';

const E164 = /^\+[1-9]\d{6,14}$/;
/** Telnyx's cap on a text's length (characters). */
const MAX_TEXT_CHARS = 1_600;

/** Telnyx's messaging error for a destination that cannot take a text (a landline). */
export const TELNYX_NOT_ROUTABLE = {
  code: '40001',
  title: 'Not routable',
  detail: 'The destination number is a landline or cannot receive messages',
};

/** Sends a signed event (Ed25519) for the account of `connectionId` to `url`; its answer, if any. */
type SendEvent = (
  connectionId: string,
  url: string,
  eventType: string,
  payload: Record<string, unknown>,
) => Promise<Response | undefined>;

/**
 * The local Telnyx's Messaging API on the carrier's messaging: `POST /v2/messages` (from, to,
 * text, webhook_url; 200 with the message `queued` and its `parts`), `GET /v2/messages/{id}`, the
 * events Telnyx signs (`message.sent`, then `message.finalized` with the recipient's status
 * `delivered`, or `delivery_failed` and error 40001 for a landline), 429 (error 10011) above the
 * account's messages per second, and `message.received` for a text to the account's number.
 */
export function telnyxMessages(messaging: CarrierMessaging, numbers: NumberInventory, sendEvent: SendEvent) {
  const webhooks = new Map<string, string | null>();
  const failures = new Map<string, (typeof TELNYX_NOT_ROUTABLE)[]>();
  const times = new Map<string, { sent_at: string | null; completed_at: string | null }>();

  const recipientStatus = (message: CarrierMessage) =>
    ({
      queued: 'queued',
      sent: 'sent',
      delivered: 'delivered',
      undelivered: 'delivery_failed',
      received: 'webhook_delivered',
    })[message.status] ?? message.status;

  const payload = (message: CarrierMessage) => ({
    record_type: 'message',
    id: message.id,
    direction: message.direction,
    type: 'SMS',
    messaging_profile_id: null,
    organization_id: message.account,
    from: { phone_number: message.from, carrier: 'Simulated', line_type: 'Wireless' },
    to: [
      {
        phone_number: message.to,
        status: recipientStatus(message),
        carrier: 'Simulated',
        line_type: failures.has(message.id) ? 'Wireline' : 'Wireless',
      },
    ],
    text: message.body,
    encoding: message.encoding,
    parts: message.segments,
    webhook_url: webhooks.get(message.id) ?? null,
    received_at: new Date(message.created_at).toISOString(),
    sent_at: times.get(message.id)?.sent_at ?? null,
    completed_at: times.get(message.id)?.completed_at ?? null,
    cost: null,
    errors: failures.get(message.id) ?? [],
  });

  async function report(message: CarrierMessage, eventType: 'message.sent' | 'message.finalized'): Promise<void> {
    const url = webhooks.get(message.id);
    if (!url || !isLoopback(url)) return;
    const response = await sendEvent(message.account, url, eventType, payload(message));
    if (response && !response.ok)
      console.error(`Local Telnyx: ${eventType} webhook answered ${response.status}: ${await response.text()}`);
  }

  function send(connectionId: string, body: Record<string, unknown>, response: ServerResponse): void {
    const to = typeof body.to === 'string' ? body.to : '';
    const from = typeof body.from === 'string' ? body.from : '';
    const text = typeof body.text === 'string' ? body.text : '';
    if (!E164.test(to))
      return telnyxError(response, 400, '40310', "Invalid 'to' address", `${to} is not a valid E.164 number`);
    const owned = numbers.ownedBy(connectionId).find((number) => number.phone_number === from);
    if (!owned || !owned.capabilities.includes('sms'))
      return telnyxError(
        response,
        400,
        '40305',
        "Invalid 'from' address",
        `${from} is not a messaging-enabled number on your account`,
      );
    if (!text || text.length > MAX_TEXT_CHARS)
      return telnyxError(
        response,
        400,
        '40002',
        'Invalid message body',
        `text must be 1 to ${MAX_TEXT_CHARS} characters`,
      );
    if (!messaging.admit(connectionId))
      return telnyxError(
        response,
        429,
        '10011',
        'Too many requests',
        'The messaging rate limit of the account was exceeded',
      );
    const id = randomUUID();
    webhooks.set(id, typeof body.webhook_url === 'string' ? body.webhook_url : null);
    times.set(id, { sent_at: null, completed_at: null });
    const message = messaging.send(
      { id, account: connectionId, from, to, body: text },
      {
        sent: () => {
          times.get(id)!.sent_at = new Date().toISOString();
          return report(message, 'message.sent');
        },
        delivered: () => {
          times.get(id)!.completed_at = new Date().toISOString();
          return report(message, 'message.finalized');
        },
        undeliverable: () => {
          times.get(id)!.completed_at = new Date().toISOString();
          failures.set(id, [TELNYX_NOT_ROUTABLE]);
          return report(message, 'message.finalized');
        },
      },
    );
    sendJson(response, 200, { data: payload(message) });
  }

  /** `POST /v2/messages` and `GET /v2/messages/{id}`; false when the request is neither. */
  function resource(
    connectionId: string,
    request: { method: string | undefined; path: string; body: Record<string, unknown> },
    response: ServerResponse,
  ): boolean {
    if (request.path === '/v2/messages' && request.method === 'POST') {
      send(connectionId, request.body, response);
      return true;
    }
    const one = /^\/v2\/messages\/([0-9a-f-]{36})$/.exec(request.path);
    if (!one || request.method !== 'GET') return false;
    const message = messaging.messages.find((each) => each.id === one[1] && each.account === connectionId);
    if (message) sendJson(response, 200, { data: payload(message) });
    else telnyxError(response, 404, '10005', 'Resource not found');
    return true;
  }

  /**
   * A phone texting an account's number (`POST /_simulator/incoming-messages` `{from, to, text}`):
   * `message.received` to the messaging webhook (`webhookUrl`), signed with the account's key.
   */
  async function incoming(from: string, to: string, text: string, webhookUrl: string | null) {
    const holder = numbers.holder(to);
    if (!holder || !webhookUrl) return { status: 404, body: { detail: `No account's number ${to} takes texts here` } };
    const message = messaging.receive({ id: randomUUID(), account: holder.owner, from, to, body: text });
    const answer = await sendEvent(holder.owner, webhookUrl, 'message.received', payload(message));
    return { status: 200, body: { id: message.id, webhook_status: answer?.status ?? null } };
  }

  return { resource, incoming };
}
