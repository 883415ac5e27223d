import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { CarrierMessage, CarrierMessaging } from './messaging.ts';
import type { NumberInventory } from './number-inventory.ts';
import { API_VERSION, twilioError, twilioSid } from './twilio-rest.ts';

/** Twilio's cap on a message body (characters; 10 segments of UCS-2 are already past it). */
const MAX_BODY_CHARS = 1_600;
const E164 = /^\+[1-9]\d{6,14}$/;

/** Sends a signed, form-encoded webhook (X-Twilio-Signature) to `url` for `accountSid`; its answer, if any. */
type SignedPost = (accountSid: string, url: string, params: Record<string, string>) => Promise<Response | undefined>;

/**
 * The local Twilio's Messages API on the carrier's messaging: `POST /Accounts/{sid}/Messages.json`
 * (To, From, Body, StatusCallback; 201 `queued` with `num_segments`), `GET …/Messages/{SM…}.json`,
 * the status callbacks Twilio signs (`MessageStatus` sent, then delivered, or undelivered with
 * `ErrorCode` 30006 for a landline), 429 with code 20429 above the account's messages per second,
 * and incoming texts announced to the number's `SmsUrl` as Twilio does.
 */
export function twilioMessages(messaging: CarrierMessaging, numbers: NumberInventory, signedPost: SignedPost) {
  const statusCallbacks = new Map<string, string | null>();
  const errorCodes = new Map<string, number>();

  const resource = (message: CarrierMessage) => ({
    sid: message.id,
    account_sid: message.account,
    to: message.to,
    from: message.from,
    body: message.body,
    status: message.status,
    direction: message.direction === 'inbound' ? 'inbound' : 'outbound-api',
    num_segments: String(message.segments),
    num_media: '0',
    price: null,
    price_unit: 'USD',
    error_code: errorCodes.get(message.id) ?? null,
    error_message: null,
    api_version: API_VERSION,
    date_created: new Date(message.created_at).toUTCString(),
    date_sent: null,
    uri: `/${API_VERSION}/Accounts/${message.account}/Messages/${message.id}.json`,
  });

  async function report(message: CarrierMessage, extra: Record<string, string> = {}): Promise<void> {
    const url = statusCallbacks.get(message.id);
    if (!url) return;
    const response = await signedPost(message.account, url, {
      AccountSid: message.account,
      ApiVersion: API_VERSION,
      From: message.from,
      To: message.to,
      MessageSid: message.id,
      SmsSid: message.id,
      MessageStatus: message.status,
      SmsStatus: message.status,
      ...extra,
    });
    if (response && !response.ok)
      console.error(`Local Twilio: message status callback answered ${response.status}: ${await response.text()}`);
  }

  function create(accountSid: string, form: URLSearchParams, response: ServerResponse): void {
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const body = form.get('Body') ?? '';
    if (!E164.test(to)) return twilioError(response, 400, 21211, `Invalid 'To' Phone Number: ${to}`);
    const owned = numbers.ownedBy(accountSid).find((number) => number.phone_number === from);
    if (!owned || !owned.capabilities.includes('sms'))
      return twilioError(
        response,
        400,
        21606,
        `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
      );
    if (!body) return twilioError(response, 400, 21602, 'Message body is required.');
    if (body.length > MAX_BODY_CHARS)
      return twilioError(response, 400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (!messaging.admit(accountSid)) return twilioError(response, 429, 20429, 'Too Many Requests');
    const id = twilioSid('SM');
    statusCallbacks.set(id, form.get('StatusCallback'));
    const message = messaging.send(
      { id, account: accountSid, from, to, body },
      {
        sent: () => report(message),
        delivered: () => report(message, { RawDlrDoneDate: new Date().toISOString().slice(2, 16).replace(/\D/g, '') }),
        undeliverable: () => {
          errorCodes.set(id, 30006);
          return report(message, { ErrorCode: '30006' });
        },
      },
    );
    sendJson(response, 201, resource(message));
  }

  /** `Messages.json` and `Messages/{SM…}.json` of an account; false when `path` is neither. */
  function accountResource(
    accountSid: string,
    path: string,
    method: string | undefined,
    form: URLSearchParams,
    response: ServerResponse,
  ): boolean {
    if (path === 'Messages.json' && method === 'POST') {
      create(accountSid, form, response);
      return true;
    }
    const one = /^Messages\/(SM\w+)\.json$/.exec(path);
    if (!one || method !== 'GET') return false;
    const message = messaging.messages.find((each) => each.id === one[1] && each.account === accountSid);
    if (message) sendJson(response, 200, resource(message));
    else
      twilioError(
        response,
        404,
        20404,
        `The requested resource /${API_VERSION}/Accounts/${accountSid}/${path} was not found`,
      );
    return true;
  }

  /**
   * A phone texting an account's number (`POST /_simulator/incoming-messages` From, To, Body): the
   * number's SmsUrl (else `fallbackUrl`) gets Twilio's incoming message webhook, signed.
   */
  async function incoming(from: string, to: string, body: string, fallbackUrl: string | null) {
    const holder = numbers.holder(to);
    const url = holder?.number.smsUrl ?? fallbackUrl;
    if (!holder || !url) return { status: 404, body: { detail: `No account's number ${to} takes texts here` } };
    const message = messaging.receive({ id: twilioSid('SM'), account: holder.owner, from, to, body });
    const answer = await signedPost(holder.owner, url, {
      AccountSid: holder.owner,
      ApiVersion: API_VERSION,
      MessageSid: message.id,
      SmsMessageSid: message.id,
      SmsSid: message.id,
      SmsStatus: 'received',
      From: from,
      To: to,
      Body: body,
      NumMedia: '0',
      NumSegments: String(message.segments),
    });
    return { status: 200, body: { message_sid: message.id, webhook_status: answer?.status ?? null } };
  }

  return { accountResource, incoming };
}
