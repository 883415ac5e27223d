/**
 * A Polish mobile number's regulatory review reaches the organization's webhooks: the operator's
 * override (the CLI's `number approve|reject`, here its service) moves a pending number to active
 * or rejected and sends `number.approved` / `number.rejected` with the reason and who decided.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  apiClient,
  fundOrganization,
  needsLocalStack,
  newOrganization,
  type TestOrganization,
} from '../support/api.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

const api = apiClient();
const receivers = webhookReceivers();
let org: TestOrganization;

const END_USER = {
  name: 'Anna Kowalska',
  address: 'ul. Marszałkowska 1, Warszawa',
  document_type: 'id_card',
  document_number: 'ABC123456',
};

async function pendingMobile(index: number) {
  const market = await api.request('GET', '/phone-numbers/marketplace?country_code=PL&number_type=mobile', {
    key: org.key,
  });
  const bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
    key: org.key,
    body: {
      phone_number: market.body.items[index].phone_number,
      country_code: 'PL',
      number_type: 'mobile',
      end_user_id: 7,
      consent: true,
      end_user: END_USER,
    },
  });
  expect(bought.body).toMatchObject({ status: 'pending' });
  return bought.body as { id: number; phone_number: string };
}

beforeAll(async () => {
  org = await newOrganization('Number review');
  await fundOrganization(org.organizationId, 20, 'paid');
});
afterAll(() => receivers.closeAll());

describe.skipIf(needsLocalStack)('a number’s regulatory review', () => {
  it('sends number.approved and number.rejected to the webhooks when the operator decides', async () => {
    const sink = await receivers.start();
    const webhook = await api.request('POST', '/webhooks', {
      key: org.key,
      body: { url: sink.url, events: ['number.approved', 'number.rejected'] },
    });
    expect(webhook.status).toBe(201);
    const approved = await pendingMobile(0);
    const rejected = await pendingMobile(1);

    Object.assign(process.env, inject('stackEnv'));
    const { reviewNumber } = await import('../../shared/services/numbers.ts');
    expect(await reviewNumber(org.organizationId, approved.id, 'approve')).toMatchObject({ status: 'active' });
    expect(
      await reviewNumber(org.organizationId, rejected.id, 'reject', 'The identity document has expired'),
    ).toMatchObject({ status: 'rejected' });

    const events = await eventually(
      () => (sink.received.length === 2 ? sink.received.map((hook) => JSON.parse(hook.body)) : undefined),
      30_000,
      200,
    );
    const common = { organization_id: org.organizationId, reviewed_by: 'operator', reviewed_at: expect.any(String) };
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
