import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textSegments } from '../../local/carrier/messaging.ts';
import { startLocalTelnyx, type LocalTelnyx } from '../../local/carrier/telnyx-wire.ts';
import { startLocalTwilio, type LocalTwilio } from '../../local/carrier/twilio-wire.ts';
import {
  ProviderError,
  type CallbackRequest,
  type MessageStatusEvent,
  type TelephonyAdapter,
} from '../../shared/telephony/adapter.ts';
import { telnyxAdapter } from '../../shared/telephony/telnyx.ts';
import { twilioAdapter } from '../../shared/telephony/twilio.ts';

/**
 * Text messages over the simulated carrier, through the official SDKs (the adapters' `messaging`
 * part) at the local Twilio and the local Telnyx: what the carrier does by the callee directory
 * (delivered, a landline, a late receipt or none), the segments, the rate limit, a sender that
 * cannot text, incoming texts; every webhook verified with the adapter's own check.
 */

const TWILIO_NUMBER = '+15005550006';
const TELNYX_NUMBER = '+15005550010';

/** The platform's side: records every webhook the carriers send it, as the adapter reads it. */
const received: CallbackRequest[] = [];
let receiver = '';
const server = createServer(async (request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  received.push({
    url: `${receiver}${request.url}`,
    headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
    rawBody: Buffer.concat(chunks).toString('utf8'),
  });
  response.writeHead(204).end();
});

let twilio: LocalTwilio;
let telnyx: LocalTelnyx;
const providers: {
  name: string;
  adapter: () => TelephonyAdapter;
  from: string;
  text: (from: string, to: string, body: string) => Promise<Response>;
}[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = { sid: `AC${randomBytes(16).toString('hex')}`, authToken: randomBytes(16).toString('hex') };
  twilio = await startLocalTwilio({ account, ownedNumbers: [TWILIO_NUMBER], callSeconds: 1, callsPerSecond: 10 });
  twilio.setMessagingUrl(`${receiver}/messages`);
  telnyx = await startLocalTelnyx({ callSeconds: 1 });
  telnyx.setMessagingUrl(`${receiver}/messages`);
  const telnyxAccount = telnyx.createAccount([TELNYX_NUMBER]);
  const twilioCredentials = { provider: 'twilio' as const, account_sid: account.sid, auth_token: account.authToken };
  providers.push(
    {
      name: 'twilio',
      adapter: () => twilioAdapter(twilioCredentials, { apiBaseUrl: twilio.apiUrl }),
      from: TWILIO_NUMBER,
      text: (from, to, body) =>
        fetch(`${twilio.apiUrl}/_simulator/incoming-messages`, {
          method: 'POST',
          body: new URLSearchParams({ From: from, To: to, Body: body }),
        }),
    },
    {
      name: 'telnyx',
      adapter: () => telnyxAdapter({ provider: 'telnyx', ...telnyxAccount }, { apiBaseUrl: telnyx.apiUrl }),
      from: TELNYX_NUMBER,
      text: (from, to, body) =>
        fetch(`${telnyx.origin}/_simulator/incoming-messages`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ from, to, text: body }),
        }),
    },
  );
});
afterAll(async () => {
  await twilio.stop();
  await telnyx.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The verified status callbacks of one message so far (each one's signature checked by the adapter). */
async function statuses(adapter: TelephonyAdapter, callbackPath: string): Promise<MessageStatusEvent[]> {
  const events: MessageStatusEvent[] = [];
  for (const request of received.filter((each) => each.url.endsWith(callbackPath))) {
    expect(await adapter.callbacks.verifyCallback(request)).toBe(true);
    const event = adapter.messaging!.parseMessageStatus(request);
    if (event) events.push(event);
  }
  return events;
}

/** Polls until `check` holds (the carrier reports on its own schedule), up to 15 s. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('textSegments', () => {
  it.each([
    ['', 'GSM-7', 1],
    ['a'.repeat(160), 'GSM-7', 1],
    ['a'.repeat(161), 'GSM-7', 2],
    ['a'.repeat(306), 'GSM-7', 2],
    ['a'.repeat(307), 'GSM-7', 3],
    // The extension table's characters take two septets: 80 euro signs fill one segment.
    ['€'.repeat(80), 'GSM-7', 1],
    ['€'.repeat(81), 'GSM-7', 2],
    ['Zażółć gęślą jaźń', 'UCS-2', 1],
    ['ż'.repeat(70), 'UCS-2', 1],
    ['ż'.repeat(71), 'UCS-2', 2],
    ['ż'.repeat(135), 'UCS-2', 3],
  ])('%j is %s in %i segment(s)', (body, encoding, segments) => {
    expect(textSegments(body)).toEqual({ encoding, segments });
  });
});

describe.each(['twilio', 'telnyx'])('messaging at the local %s', (name) => {
  const provider = () => providers.find((each) => each.name === name)!;

  it('sends a text through the SDK, reports it sent then delivered with signed callbacks', async () => {
    const adapter = provider().adapter();
    const path = `/status?run=1.2.3&sms=delivered-${name}`;
    const sent = await adapter.messaging!.send({
      to: '+48601234561',
      from: provider().from,
      body: 'Your booking is confirmed for Friday 10:00.',
      statusCallbackUrl: `${receiver}${path}`,
    });
    expect(sent).toMatchObject({ status: 'queued', segments: 1 });
    const events = await eventually(
      () => statuses(adapter, path),
      (found) => found.some((event) => event.status === 'delivered'),
    );
    expect(events.map((event) => event.status)).toEqual(['sent', 'delivered']);
    expect(events.every((event) => event.messageId === sent.messageId && event.errorCode === null)).toBe(true);
  });

  it('a landline cannot take a text: the delivery fails with the provider error code', async () => {
    const adapter = provider().adapter();
    const path = `/status?run=1.2.3&sms=landline-${name}`;
    await adapter.messaging!.send({
      to: '+48221234522',
      from: provider().from,
      body: 'Your code is 1234',
      statusCallbackUrl: `${receiver}${path}`,
    });
    const events = await eventually(
      () => statuses(adapter, path),
      (found) => found.some((event) => event.status === 'undelivered'),
    );
    expect(events.at(-1)).toMatchObject({
      status: 'undelivered',
      errorCode: name === 'twilio' ? '30006' : '40001',
      errorReason: 'landline_or_unreachable_carrier',
    });
  });

  it('a long text in Polish is split into UCS-2 segments', async () => {
    const sent = await provider()
      .adapter()
      .messaging!.send({
        to: '+48601234561',
        from: provider().from,
        body: 'Dziękujemy! '.repeat(12),
        statusCallbackUrl: `${receiver}/status?sms=long-${name}`,
      });
    expect(sent.segments).toBe(3);
  });

  it('a receipt that never comes leaves the text sent', async () => {
    const adapter = provider().adapter();
    const path = `/status?run=1.2.3&sms=silent-${name}`;
    await adapter.messaging!.send({
      to: '+48601234524',
      from: provider().from,
      body: 'Hello',
      statusCallbackUrl: `${receiver}${path}`,
    });
    // A delivered text's receipt (sent to another number at the same time) bounds the wait.
    const control = `/status?run=1.2.3&sms=silent-control-${name}`;
    await adapter.messaging!.send({
      to: '+48601234561',
      from: provider().from,
      body: 'Hello',
      statusCallbackUrl: `${receiver}${control}`,
    });
    await eventually(
      () => statuses(adapter, control),
      (found) => found.some((event) => event.status === 'delivered'),
    );
    const silent = await eventually(
      () => statuses(adapter, path),
      (found) => found.length > 0,
    );
    expect(silent.map((event) => event.status)).toEqual(['sent']);
  });

  it('refuses a sender number the account does not own, and one without the sms capability, as sender_cannot_text', async () => {
    const error = await provider()
      .adapter()
      .messaging!.send({ to: '+48601234561', from: '+48601234599', body: 'x', statusCallbackUrl: `${receiver}/x` })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400, refusal: 'sender_cannot_text' });
  });

  it("answers the provider's rate limit (429) as rate_limited, with nothing sent", async () => {
    const adapter = provider().adapter();
    const accountPath =
      name === 'twilio'
        ? `${twilio.apiUrl}/_simulator/accounts/${(adapter as { accountId: string }).accountId}`
        : `${telnyx.origin}/_simulator/accounts/${adapter.accountId}`;
    const setRate = (rate: number) =>
      fetch(accountPath, {
        method: 'POST',
        ...(name === 'twilio'
          ? { body: new URLSearchParams({ MessagesPerSecond: String(rate) }) }
          : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ messages_per_second: rate }) }),
      }).then((response) => response.json() as Promise<{ messages_rate_limited: number }>);
    const before = await setRate(0);
    try {
      const error = await adapter
        .messaging!.send({ to: '+48601234561', from: provider().from, body: 'x', statusCallbackUrl: `${receiver}/x` })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 429, refusal: 'rate_limited' });
    } finally {
      const after = await setRate(10);
      expect(after.messages_rate_limited).toBe(before.messages_rate_limited + 1);
    }
  });

  it('announces a text to the number on the signed messaging webhook', async () => {
    const adapter = provider().adapter();
    const before = received.length;
    const answer = await provider().text('+48601234561', provider().from, 'anna.nowak@example.com');
    expect(answer.status).toBe(200);
    const webhook = received.slice(before).find((each) => each.url.endsWith('/messages'))!;
    expect(await adapter.callbacks.verifyCallback(webhook)).toBe(true);
    expect(adapter.messaging!.parseInboundMessage(webhook)).toMatchObject({
      from: '+48601234561',
      to: provider().from,
      body: 'anna.nowak@example.com',
      segments: 1,
    });
    expect(adapter.messaging!.parseMessageStatus(webhook)).toBeUndefined();
    // Forged: the same body, the signature of another key.
    const forged = { ...webhook, rawBody: webhook.rawBody.replace('anna.nowak', 'mallory') };
    expect(await adapter.callbacks.verifyCallback(forged)).toBe(false);
  });
});
