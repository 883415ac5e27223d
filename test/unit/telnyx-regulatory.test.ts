import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTelnyx, type LocalTelnyx, type SimulatedTelnyxAccount } from '../../local/carrier/telnyx-wire.ts';
import { telnyxCustomerReference, type EndUserData } from '../../shared/domain/regulatory-review.ts';
import type { CallbackRequest } from '../../shared/telephony/adapter.ts';
import { telnyxAdapter } from '../../shared/telephony/telnyx.ts';

/**
 * A Polish mobile number's review through Telnyx's requirement groups, the adapter against the
 * local Telnyx (its reviewers decide 50 ms after the group's submission, by the submitted values:
 * local/carrier/regulatory-reviewers.ts), the news arriving as a signed `number_order.complete` at
 * the account's number-order webhook (a receiver on loopback).
 */
let telnyx: LocalTelnyx;
let account: SimulatedTelnyxAccount & { provider: 'telnyx' };
let receiver: Server;
const received: CallbackRequest[] = [];
const waiting: ((request: CallbackRequest) => void)[] = [];

beforeAll(async () => {
  telnyx = await startLocalTelnyx({ callSeconds: 1, ringMs: 10, reviewDelayMs: 50 });
  account = { provider: 'telnyx', ...telnyx.createAccount([]) };
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const callback = {
        url: `http://127.0.0.1${request.url}`,
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        rawBody: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(callback);
      waiting.shift()?.(callback);
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  telnyx.setNumberOrderUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/telephony/telnyx/status`);
});
afterAll(async () => {
  await telnyx.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

const adapter = () => telnyxAdapter(account, { apiBaseUrl: telnyx.apiUrl });
const nextCallback = () => new Promise<CallbackRequest>((resolve) => waiting.push(resolve));

async function polishMobile(): Promise<string> {
  const offered = await adapter().numbers.searchNumbers('PL', 'mobile');
  const taken = new Set(
    (await Promise.all(offered.map((each) => adapter().numbers.ownsNumber(each.phone_number)))).flatMap(
      (owned, index) => (owned ? [offered[index]!.phone_number] : []),
    ),
  );
  return offered.find((each) => !taken.has(each.phone_number))!.phone_number;
}

const submit = (e164: string, endUser: EndUserData, reference: string) =>
  adapter().regulatoryReview!.submitForReview({
    e164,
    country: 'PL',
    type: 'mobile',
    endUser,
    endUserId: 1042,
    document: { fileName: 'id.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4 scan') },
    email: 'numbers@localhost',
    statusCallbackUrl: 'http://127.0.0.1:9/unused',
    customerReference: reference,
  });

const endUser = (documentNumber: string): EndUserData => ({
  name: 'Jan Nowak',
  address: 'ul. Długa 2, Gdańsk',
  document_type: 'id_card',
  document_number: documentNumber,
});

describe('Telnyx regulatory review', () => {
  it('orders the number with a requirement group of the regulation’s requirements; approval completes the order', async () => {
    const e164 = await polishMobile();
    const callback = nextCallback();
    const { reference } = await submit(e164, endUser('ABC123456'), telnyxCustomerReference(1, 1, 1042));
    const requests = telnyx.requests.filter((each) => each.method === 'POST').slice(-4);
    expect(requests.map((each) => each.path)).toEqual([
      '/v2/documents',
      '/v2/requirement_groups',
      expect.stringMatching(/^\/v2\/requirement_groups\/[^/]+\/submit_for_approval$/),
      '/v2/number_orders',
    ]);
    expect(requests[1]!.body).toMatchObject({
      action: 'ordering',
      country_code: 'PL',
      phone_number_type: 'mobile',
      // The customer's subscriber (end_user_id 1042) traced at Telnyx, on the group and the order.
      customer_reference: 'number-1-1-end-user-1042',
      regulatory_requirements: [
        { field_value: 'Jan Nowak' },
        { field_value: 'ABC123456' },
        { field_value: 'ul. Długa 2, Gdańsk' },
        { field_value: expect.any(String) },
      ],
    });
    expect(requests[3]!.body).toMatchObject({
      connection_id: account.connection_id,
      customer_reference: 'number-1-1-end-user-1042',
      phone_numbers: [{ phone_number: e164, requirement_group_id: expect.any(String) }],
    });

    const news = await callback;
    expect(await adapter().callbacks.verifyCallback(news)).toBe(true);
    expect(adapter().regulatoryReview!.parseReviewCallback(news)).toEqual({ reference, e164 });
    const verdict = await adapter().regulatoryReview!.reviewStatus(reference);
    expect(verdict).toEqual({
      decision: 'approve',
      bought: { providerNumberId: expect.any(String), capabilities: null },
    });
    expect(await adapter().numbers.ownsNumber(e164)).toBe(true);
  });

  it('a declined requirement fails the order, its name the reason', async () => {
    const e164 = await polishMobile();
    const callback = nextCallback();
    const { reference } = await submit(e164, endUser('REJECT-9'), telnyxCustomerReference(1, 2, 1042));
    expect(adapter().regulatoryReview!.parseReviewCallback(await callback)).toMatchObject({ reference, e164 });
    expect(await adapter().regulatoryReview!.reviewStatus(reference)).toEqual({
      decision: 'reject',
      reason: 'Telnyx declined the requirements: Identification number',
    });
    expect(await adapter().numbers.ownsNumber(e164)).toBe(false);
  });
});
