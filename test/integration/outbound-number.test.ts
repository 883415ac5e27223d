import { describe, expect, inject, it } from 'vitest';
import { apiClient, fundOrganization, needsLocalStack, newOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { platformTwilio } from '../support/twilio.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();

describe.skipIf(needsLocalStack)("an agent's outbound number", () => {
  it('is the caller id of its calls: the provider’s own record of the dialed call says so, and unset it is the default', async () => {
    const org = await newOrganization('Outbound caller id');
    await fundOrganization(org.organizationId, 5);
    const agent = (
      await api.request('POST', '/agents', {
        key: org.key,
        body: { name: 'Caller', workflow_definition: { greeting: 'Hello.', steps: ['Ok?'], closing: 'Bye.' } },
      })
    ).body as { id: number; public_id: string };
    // A US number: active at once (no regulatory review).
    const market = await api.request('GET', '/phone-numbers/marketplace?country_code=US&number_type=local', {
      key: org.key,
    });
    const offered = market.body.items as { phone_number: string }[];
    let bought: { id: number; phone_number: string; status: string } | undefined;
    // Other suites buy US numbers at the same time: the next offer when one was just taken.
    for (const offer of offered) {
      const purchase = await api.request('POST', '/phone-numbers/marketplace/purchase', {
        key: org.key,
        body: { phone_number: offer.phone_number, country_code: 'US', number_type: 'local', consent: true },
      });
      if (purchase.status === 200) {
        bought = purchase.body;
        break;
      }
      expect(purchase.status).toBe(409);
    }
    expect(bought).toMatchObject({ status: 'active' });
    const outbound = await api.request('POST', `/agents/${agent.public_id}/outbound-number`, {
      key: org.key,
      body: { phone_number_id: bought!.id },
    });
    expect(outbound.status).toBe(200);

    const { client } = await platformTwilio();
    const dialedFrom = async () => {
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(1) },
      });
      expect(placed.status).toBe(200);
      Object.assign(process.env, inject('stackEnv'));
      const { getRun } = await import('../../shared/repositories/runs-read.ts');
      const callSid = await eventually(
        async () =>
          (await getRun(org.organizationId, agent.id, placed.body.workflow_run_id))?.provider_call_id ?? undefined,
        30_000,
      );
      return (await client.calls(callSid).fetch()).from;
    };
    expect(await dialedFrom()).toBe(bought!.phone_number);

    await api.request('POST', `/agents/${agent.public_id}/outbound-number`, {
      key: org.key,
      body: { phone_number_id: null },
    });
    expect(await dialedFrom()).toBe(inject('stackEnv').DEFAULT_CALLER_ID);
  });
});
