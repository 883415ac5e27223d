/**
 * A Polish mobile number's regulatory review at the provider (here the local Twilio, the platform's
 * account): the purchase sends the subscriber's data and document scan in a Bundle submitted for
 * review; the local reviewers decide by the document number (local/carrier/regulatory-reviewers.ts)
 * 200 ms later and call the bundle's signed StatusCallback, which makes the number active (bought
 * with the bundle) or rejected with the reviewers' reason (refunded, the scan erased). The
 * operator's override (the CLI's `number approve|reject`, here its service) decides a review the
 * provider holds. Either way `number.approved` / `number.rejected` reaches the webhooks.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import {
  apiClient,
  fundOrganization,
  needsLocalStack,
  newOrganization,
  type TestOrganization,
} from '../support/api.ts';
import { endUserWithScan, uploadScan } from '../support/phone-numbers.ts';
import { platformTwilio } from '../support/twilio.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

const api = apiClient();
const receivers = webhookReceivers();
let org: TestOrganization;
let sink: Awaited<ReturnType<typeof receivers.start>>;
let offers: string[];

/** A pending mobile bought with `documentNumber` (which the local reviewers decide by). */
async function pendingMobile(documentNumber: string) {
  const endUser = await endUserWithScan(org.key, documentNumber);
  for (let phoneNumber = offers.pop(); phoneNumber; phoneNumber = offers.pop()) {
    const bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
      key: org.key,
      body: {
        phone_number: phoneNumber,
        country_code: 'PL',
        number_type: 'mobile',
        end_user_id: 7,
        consent: true,
        end_user: endUser,
      },
    });
    // Another suite of this stack may buy the same offer meanwhile: the next one.
    if (bought.status === 409) continue;
    expect(bought.body).toMatchObject({ status: 'pending', order_status: 'in_review' });
    return { ...(bought.body as { id: number; phone_number: string }), documentId: endUser.document_id };
  }
  throw new Error('No Polish mobile left on offer');
}

const numberNow = async (id: number) => (await api.request('GET', `/phone-numbers/${id}`, { key: org.key })).body;
const eventsOf = (numberId: number) =>
  sink.received.map((hook) => JSON.parse(hook.body)).filter((event) => event.data.number_id === numberId);

beforeAll(async () => {
  org = await newOrganization('Number review');
  await fundOrganization(org.organizationId, 40, 'paid');
  sink = await receivers.start();
  const webhook = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: sink.url, events: ['number.approved', 'number.rejected'] },
  });
  expect(webhook.status).toBe(201);
  const market = await api.request('GET', '/phone-numbers/marketplace?country_code=PL&number_type=mobile', {
    key: org.key,
  });
  offers = (market.body.items as { phone_number: string }[]).map((item) => item.phone_number);
});
afterAll(() => receivers.closeAll());

describe.skipIf(needsLocalStack)('a number’s regulatory review', () => {
  it('takes only a PDF, JPEG or PNG scan that is what it says, and erases it on request', async () => {
    const scan = await uploadScan(org.key);
    expect(scan).toMatchObject({
      status: 201,
      body: {
        id: expect.any(Number),
        content_type: 'application/pdf',
        file_name: 'id-card.pdf',
        organization_id: org.organizationId,
      },
    });
    expect(scan.body).not.toHaveProperty('wrapped_key');
    // Stored sealed (AES-256-GCM under a data key of its own): the bucket holds no byte of the scan in the clear.
    Object.assign(process.env, inject('stackEnv'));
    const stored = await import('../../shared/repositories/number-documents.ts');
    expect(await stored.getDocument(org.organizationId, scan.body.id)).toMatchObject({
      wrapped_key: expect.any(String),
    });
    const sealed = await stored.readSealedDocument(org.organizationId, scan.body.id);
    expect(sealed.length).toBeGreaterThan(scan.body.size_bytes);
    expect(sealed.includes(Buffer.from('%PDF'))).toBe(false);
    const text = await uploadScan(org.key, new Blob(['hello'], { type: 'text/plain' }), 'id.txt');
    expect(text.status).toBe(415);
    const disguised = await uploadScan(org.key, new Blob(['hello'], { type: 'image/png' }), 'id.png');
    expect(disguised.status).toBe(422);
    expect(disguised.body.detail[0].loc).toEqual(['body', 'file']);
    const tooLarge = await uploadScan(
      org.key,
      new Blob([new Uint8Array(4 * 1024 * 1024 + 1)], { type: 'application/pdf' }),
    );
    expect(tooLarge.status).toBe(413);

    // Erased on request: once (another organization's is not found).
    const stranger = await newOrganization('Stranger');
    const erase = (key: string) => api.request('DELETE', `/phone-numbers/documents/${scan.body.id}`, { key });
    expect((await erase(stranger.key)).status).toBe(404);
    expect((await erase(org.key)).status).toBe(204);
    expect((await erase(org.key)).status).toBe(404);
    await expect(stored.readSealedDocument(org.organizationId, scan.body.id)).rejects.toThrow();
    expect(await stored.getDocument(org.organizationId, scan.body.id)).toBeUndefined();
  });

  it('approves at the provider: the bundle’s callback buys the number with it and sends number.approved', async () => {
    const number = await pendingMobile('ABC123456');
    const active = await eventually(
      async () => {
        const current = await numberNow(number.id);
        return current.status === 'active' ? current : undefined;
      },
      15_000,
      100,
    );
    expect(active).toMatchObject({
      order_status: 'completed',
      order_status_reason: null,
      provider_number_id: expect.stringMatching(/^PN/),
      capabilities: expect.arrayContaining(['voice']),
    });
    expect(Date.parse(active.outbound_commitment_until)).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    // Bought on the platform's account, pointing at the voice webhook: it carries traffic now.
    const { client } = await platformTwilio();
    const owned = await client.incomingPhoneNumbers.list({ phoneNumber: number.phone_number, limit: 1 });
    expect(owned[0]?.voiceUrl).toMatch(/\/telephony\/twilio\/voice$/);
    // The customer's subscriber (end_user_id 7) is named in the review at the provider, and in the event.
    Object.assign(process.env, inject('stackEnv'));
    const repository = await import('../../shared/repositories/numbers.ts');
    const reviewed = await repository.getNumber(org.organizationId, number.id);
    const bundle = await client.numbers.v2.regulatoryCompliance.bundles(reviewed!.review_reference!).fetch();
    expect(bundle.friendlyName).toBe('end user 7: PL mobile Jan Nowak');
    const [event] = await eventually(() => (eventsOf(number.id).length ? eventsOf(number.id) : undefined), 15_000, 100);
    expect(event).toMatchObject({
      type: 'number.approved',
      data: { reviewed_by: 'provider', status: 'active', reason: null, end_user_id: 7 },
    });
  });

  it('rejects at the provider with its reason: refunded, the scan erased, number.rejected sent', async () => {
    const before = (await api.request('GET', '/phone-numbers/setup', { key: org.key })).body.balance_usd;
    Object.assign(process.env, inject('stackEnv'));
    const documents = await import('../../shared/repositories/number-documents.ts');
    const number = await pendingMobile('REJECT-77');
    const rejected = await eventually(
      async () => {
        const current = await numberNow(number.id);
        return current.status === 'rejected' ? current : undefined;
      },
      15_000,
      100,
    );
    const reason = 'The document REJECT-77 could not be verified against the issuing register';
    expect(rejected).toMatchObject({ order_status: 'rejected', order_status_reason: reason, provider_number_id: null });
    expect((await api.request('GET', '/phone-numbers/setup', { key: org.key })).body.balance_usd).toBe(before);
    // Erased right after the status changed.
    await eventually(async () => {
      // The platform's record of it (the API serves no document back).
      return (await documents.getDocument(org.organizationId, number.documentId)) ? undefined : true;
    });
    const [event] = await eventually(() => (eventsOf(number.id).length ? eventsOf(number.id) : undefined), 15_000, 100);
    expect(event).toMatchObject({
      type: 'number.rejected',
      data: { reviewed_by: 'provider', status: 'rejected', reason, end_user_id: 7 },
    });
  });

  it('keeps a review decided and announced before the purchase recorded it (the callback first, then the answer)', async () => {
    // QUICK: the local Twilio decides at the submission and its callback arrives before the
    // submission's answer, when the number has no review reference yet to match.
    const endUser = await endUserWithScan(org.key, 'QUICK-1');
    let bought;
    for (let phoneNumber = offers.pop(); phoneNumber; phoneNumber = offers.pop()) {
      bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
        key: org.key,
        body: {
          phone_number: phoneNumber,
          country_code: 'PL',
          number_type: 'mobile',
          end_user_id: 8,
          consent: true,
          end_user: endUser,
        },
      });
      if (bought.status !== 409) break;
    }
    expect(bought?.status).toBe(200);
    const id = (bought!.body as { id: number }).id;
    // Decided without waiting for the schedule's look (15 minutes on).
    const active = await eventually(
      async () => {
        const current = await numberNow(id);
        return current.status === 'active' ? current : undefined;
      },
      10_000,
      100,
    );
    expect(active).toMatchObject({ order_status: 'completed', provider_number_id: expect.stringMatching(/^PN/) });
    const events = await eventually(() => (eventsOf(id).length ? eventsOf(id) : undefined), 10_000, 100);
    expect(events.map((event) => event.type)).toEqual(['number.approved']);
  });

  it('the schedule’s look finds a review whose callback never came and applies the provider’s approval', async () => {
    const number = await pendingMobile('SILENT-3');
    Object.assign(process.env, inject('stackEnv'));
    const repository = await import('../../shared/repositories/numbers.ts');
    const { applyProviderReview, REVIEW_POLL_AFTER_MS } = await import('../../shared/services/numbers.ts');
    // Left to the callback while young; in the schedule's index once older than REVIEW_POLL_AFTER_MS.
    const inReview = (at: number) =>
      repository
        .numbersInReview(new Date(at).toISOString(), 1000)
        .then((found) => found.find((each) => each.id === number.id));
    expect(await inReview(Date.now() - REVIEW_POLL_AFTER_MS)).toBeUndefined();
    const found = await inReview(Date.now() + REVIEW_POLL_AFTER_MS);
    expect(found).toMatchObject({ status: 'pending', review_reference: expect.stringMatching(/^BU/) });
    // The schedule's step for each: pending until the provider decides, then applied.
    await eventually(async () =>
      (await applyProviderReview(found!, found!.review_reference!)) === 'approved' ? true : undefined,
    );
    expect(await numberNow(number.id)).toMatchObject({
      status: 'active',
      provider_number_id: expect.stringMatching(/^PN/),
    });
    expect(await inReview(Date.now() + REVIEW_POLL_AFTER_MS)).toBeUndefined();
    const [event] = await eventually(() => (eventsOf(number.id).length ? eventsOf(number.id) : undefined));
    expect(event).toMatchObject({ type: 'number.approved', data: { reviewed_by: 'provider' } });
  });

  it('lets the operator apply an approval whose news was lost, and reject a review the provider holds, logged as overrides', async () => {
    const approved = await pendingMobile('SILENT-1');
    const rejected = await pendingMobile('HOLD-2');

    Object.assign(process.env, inject('stackEnv'));
    const { reviewNumber } = await import('../../shared/services/numbers.ts');
    const { logger } = await import('../../shared/observability/logger.ts');
    const logged = vi.spyOn(logger, 'info');
    // A review the provider has not approved cannot be bought: 409, the number stays pending.
    await expect(reviewNumber(org.organizationId, rejected.id, 'approve')).rejects.toThrow(
      /not decided the review yet/,
    );
    expect((await numberNow(rejected.id)).status).toBe('pending');
    // The provider approves SILENT-1 without calling back: the override applies it once it has.
    const active = await eventually(
      () =>
        reviewNumber(org.organizationId, approved.id, 'approve').catch((error: Error) => {
          if (/not decided/.test(error.message)) return undefined;
          throw error;
        }),
      15_000,
      100,
    );
    expect(active).toMatchObject({ status: 'active', provider_number_id: expect.stringMatching(/^PN/) });
    expect(
      await reviewNumber(org.organizationId, rejected.id, 'reject', 'The identity document has expired'),
    ).toMatchObject({ status: 'rejected' });

    const overrides = logged.mock.calls.filter(
      ([message]) => message === 'Regulatory review overridden by the operator',
    );
    logged.mockRestore();
    expect(overrides.map(([, fields]) => fields)).toEqual([
      { organizationId: org.organizationId, numberId: approved.id, decision: 'approve', reason: null },
      {
        organizationId: org.organizationId,
        numberId: rejected.id,
        decision: 'reject',
        reason: 'The identity document has expired',
      },
    ]);
    const events = await eventually(
      () => {
        const both = [...eventsOf(approved.id), ...eventsOf(rejected.id)];
        return both.length === 2 ? both : undefined;
      },
      30_000,
      200,
    );
    const common = {
      organization_id: org.organizationId,
      end_user_id: 7,
      reviewed_by: 'operator',
      reviewed_at: expect.any(String),
    };
    expect(events.sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      {
        type: 'number.approved',
        timestamp: expect.any(String),
        data: {
          ...common,
          number_id: approved.id,
          phone_number: approved.phone_number,
          status: 'active',
          reason: null,
        },
      },
      {
        type: 'number.rejected',
        timestamp: expect.any(String),
        data: {
          ...common,
          number_id: rejected.id,
          phone_number: rejected.phone_number,
          status: 'rejected',
          reason: 'The identity document has expired',
        },
      },
    ]);
  });
});
