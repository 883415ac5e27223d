import { beforeAll, describe, expect, inject, it } from 'vitest';
import { burstToleranceMs, RATE_HEADROOM, slotIntervalMs } from '../../shared/domain/call-rate.ts';
import {
  apiClient,
  fundOrganization,
  needsLocalStack,
  newOrganization,
  type TestOrganization,
} from '../support/api.ts';
import { daytimeNumber, endUserWithScan } from '../support/phone-numbers.ts';
import { inboundRun } from '../support/inbound-calls.ts';
import { platformTwilio, twilioAt } from '../support/twilio.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();

const newAgent = async (org: TestOrganization, name: string) =>
  (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name, workflow_definition: { greeting: 'Hello.', steps: ['Ok?'], closing: 'Bye.' } },
    })
  ).body as {
    id: number;
    public_id: string;
  };

const repositoryRun = async (org: TestOrganization, agentId: number, runId: number) => {
  Object.assign(process.env, inject('stackEnv'));
  const runs = await import('../../shared/repositories/runs-read.ts');
  return runs.getRun(org.organizationId, agentId, runId);
};

/** A phone somewhere calling a number: the local Twilio rings the number's voice webhook. */
async function ring(
  from: string,
  to: string,
): Promise<{ call_sid: string; answer: 'connected' | 'rejected'; say: string[] }> {
  const response = await fetch(`${inject('telephonyApiUrl')}/_simulator/incoming-calls`, {
    method: 'POST',
    body: new URLSearchParams({ From: from, To: to }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { call_sid: string; answer: 'connected' | 'rejected'; say: string[] };
}

/** A Twilio account of the organization's own (a subaccount at the local Twilio) owning one number. */
async function ownTwilioAccount(callsPerSecond?: number) {
  const { client } = await platformTwilio();
  const created = await client.api.v2010.accounts.create({ friendlyName: 'Customer account' });
  const own = twilioAt(created.sid, created.authToken);
  const [offer] = await own.availablePhoneNumbers('GB').local.list({ limit: 1 });
  await own.incomingPhoneNumbers.create({ phoneNumber: offer!.phoneNumber, voiceUrl: 'https://example.invalid/voice' });
  if (callsPerSecond) {
    await fetch(`${inject('telephonyApiUrl')}/_simulator/accounts/${created.sid}`, {
      method: 'POST',
      body: new URLSearchParams({ CallsPerSecond: String(callsPerSecond) }),
    });
  }
  const stats = async () =>
    (await (await fetch(`${inject('telephonyApiUrl')}/_simulator/accounts/${created.sid}`)).json()) as {
      calls_created_at: number[];
      rate_limited: number;
    };
  return { sid: created.sid, token: created.authToken, number: offer!.phoneNumber, stats };
}

describe.skipIf(needsLocalStack)('ending a call through the API', () => {
  it('hangs up a call in progress: the run ends completed with its recording, long before the callee would have hung up', async () => {
    const org = await newOrganization('Hang-up', 3);
    const agent = await newAgent(org, 'Stoppable');
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(3), initial_context: {} },
    });
    const runId = placed.body.workflow_run_id as number;
    await eventually(async () => (await repositoryRun(org, agent.id, runId))?.answered_at ?? undefined);
    const startedAt = Date.now();

    const end = await api.request('POST', `/agents/${agent.public_id}/conversations/${runId}/end`, { key: org.key });
    expect(end.status).toBe(202);
    expect(end.body).toEqual({ workflow_run_id: runId, status: 'ending' });
    const run = await eventually(async () => {
      const current = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return current.body.status !== 'in_progress' ? current.body : undefined;
    });
    expect(run).toMatchObject({ status: 'completed', recording_url: expect.stringMatching(/recording\.wav$/) });
    // The simulated callee stays 10 s; the hang-up ended it within a few.
    expect(Date.now() - startedAt).toBeLessThan(6_000);

    const again = await api.request('POST', `/agents/${agent.public_id}/conversations/${runId}/end`, { key: org.key });
    expect(again.status).toBe(409);
    expect(
      (await api.request('POST', `/agents/${agent.public_id}/conversations/999999999/end`, { key: org.key })).status,
    ).toBe(404);
    const stranger = await newOrganization('Stranger');
    expect(
      (await api.request('POST', `/agents/${agent.public_id}/conversations/${runId}/end`, { key: stranger.key }))
        .status,
    ).toBe(404);
  });
});

describe.skipIf(needsLocalStack)('incoming calls', () => {
  let org: TestOrganization;
  let agent: { id: number; public_id: string };

  beforeAll(async () => {
    org = await newOrganization('Reception', 1);
    agent = await newAgent(org, 'Receptionist');
    await fundOrganization(org.organizationId, 20);
  });

  const buyAndAssign = async (country: string, type: string, extra: object = {}) => {
    const market = await api.request('GET', `/phone-numbers/marketplace?country_code=${country}&number_type=${type}`, {
      key: org.key,
    });
    // The last offer: other test files buy the first ones at the same time.
    const offer = market.body.items.at(-1);
    const bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
      key: org.key,
      body: { phone_number: offer.phone_number, country_code: country, number_type: type, end_user_id: 1, ...extra },
    });
    expect(bought.status).toBe(200);
    const assigned = await api.request('POST', '/phone-numbers/assign', {
      key: org.key,
      body: { phone_number_id: bought.body.id, workflow_id: agent.id },
    });
    expect(assigned.status).toBe(200);
    return bought.body as { id: number; phone_number: string; status: string };
  };

  it("answers a call to an assigned, active number with the agent: an inbound run with the caller's number, counted as a channel", async () => {
    const number = await buyAndAssign('GB', 'local');
    expect(number.status).toBe('active');
    const caller = '+48601234565';
    const call = await ring(caller, number.phone_number);
    expect(call.answer).toBe('connected');

    const inbound = await inboundRun(api, org, agent, caller, number.phone_number);

    // The organization's one channel is taken by this call: a second caller is turned away politely.
    const busy = await ring('+48601234566', number.phone_number);
    expect(busy.answer).toBe('rejected');
    expect(busy.say.join(' ')).toMatch(/try again later/);

    const ended = await eventually(async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${inbound.id}`, { key: org.key });
      return run.body.status !== 'in_progress' ? run.body : undefined;
    }, 30_000);
    expect(ended).toMatchObject({ status: 'completed', recording_url: expect.stringMatching(/recording\.wav$/) });
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${inbound.id}/transcript`, {
      key: org.key,
    });
    expect(transcript.status).toBe(200);
  });

  it('carries no traffic on a pending number, and rejects calls to numbers nobody owns', async () => {
    const pending = await buyAndAssign('PL', 'mobile', { consent: true, end_user: await endUserWithScan(org.key) });
    expect(pending.status).toBe('pending');
    const refused = await ring('+48601234567', pending.phone_number);
    expect(refused).toMatchObject({ answer: 'rejected', say: ['Sorry, this number is not in service. Goodbye.'] });
    const unknown = await ring('+48601234567', '+442079460999');
    expect(unknown.answer).toBe('rejected');
    const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    expect(list.body.items.filter((run: { phone_number: string }) => run.phone_number === '+48601234567')).toEqual([]);
  });

  it('refuses a voice webhook without a valid Twilio signature (403)', async () => {
    const body = new URLSearchParams({
      CallSid: 'CAforged',
      From: '+48601234567',
      To: '+442079460001',
      Direction: 'inbound',
    }).toString();
    const forged = await api.request('POST', '/telephony/twilio/voice', {
      body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': 'bm9wZQ==' },
    });
    expect(forged.status).toBe(403);
    const status = await api.request('POST', '/telephony/twilio/status?run=1.1.1', {
      body: 'CallSid=CA1&CallStatus=completed',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(status.status).toBe(403);
  });
});

describe.skipIf(needsLocalStack)("an organization's own telephony account", () => {
  it("is checked with the provider, stored without ever returning its secrets, and carries the organization's calls", async () => {
    const org = await newOrganization('Own Twilio', 3);
    const agent = await newAgent(org, 'Own line');
    const own = await ownTwilioAccount();
    const credentials = { provider: 'twilio', account_sid: own.sid, auth_token: own.token };

    expect((await api.request('GET', '/telephony-configs', { key: org.key })).status).toBe(404);
    const notOwned = await api.request('PUT', '/telephony-configs', {
      key: org.key,
      body: { credentials, caller_id: '+12125550100' },
    });
    expect(notOwned.status).toBe(422);
    expect(notOwned.body.detail[0].loc).toEqual(['body', 'caller_id']);
    const wrongToken = await api.request('PUT', '/telephony-configs', {
      key: org.key,
      body: { credentials: { ...credentials, auth_token: '0'.repeat(32) }, caller_id: own.number },
    });
    expect(wrongToken.status).toBe(422);
    expect(wrongToken.body.detail[0].loc).toEqual(['body', 'credentials']);

    const stored = await api.request('PUT', '/telephony-configs', {
      key: org.key,
      body: { credentials, caller_id: own.number, calls_per_second: 2 },
    });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({
      provider: 'twilio',
      account_id: own.sid,
      caller_id: own.number,
      calls_per_second: 2,
      updated_at: expect.any(String),
    });
    expect(JSON.stringify((await api.request('GET', '/telephony-configs', { key: org.key })).body)).not.toContain(
      own.token,
    );

    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(7), initial_context: {} },
    });
    const run = await eventually(async () => {
      const current = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/${placed.body.workflow_run_id}`,
        { key: org.key },
      );
      return current.body.status !== 'in_progress' ? current.body : undefined;
    });
    expect(run.status).toBe('busy');
    // Dialed on the organization's account, not the platform's.
    expect((await own.stats()).calls_created_at).toHaveLength(1);

    expect((await api.request('DELETE', '/telephony-configs', { key: org.key })).status).toBe(204);
    expect((await api.request('DELETE', '/telephony-configs', { key: org.key })).status).toBe(404);
  });

  it('paces every call of the account, whichever organization places it: no 429 from the provider, no idle gaps', async () => {
    // The provider allows 2 calls per second; the config asks for 1.5, leaving room for this
    // machine's timing (every Lambda of the local stack shares one event loop; on AWS each dial
    // is its own invocation and the pacer's 10 % headroom covers network jitter).
    const own = await ownTwilioAccount(2);
    const configured = 1.5;
    // Two organizations sharing one provider account (the limit is the account's).
    const orgs = [await newOrganization('Paced A', 10), await newOrganization('Paced B', 10)];
    const agents = await Promise.all(orgs.map((org, index) => newAgent(org, `Paced ${index}`)));
    for (const org of orgs) {
      const stored = await api.request('PUT', '/telephony-configs', {
        key: org.key,
        body: {
          credentials: { provider: 'twilio', account_sid: own.sid, auth_token: own.token },
          caller_id: own.number,
          calls_per_second: configured,
        },
      });
      expect(stored.status).toBe(200);
    }
    const placements = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        api.request('POST', `/agents/${agents[index % 2]!.public_id}/calls`, {
          key: orgs[index % 2]!.key,
          body: { phone_number: daytimeNumber(8, index), initial_context: {} },
        }),
      ),
    );
    expect(placements.map((placement) => placement.status)).toEqual(Array(8).fill(200));

    const stats = await eventually(async () => {
      const current = await own.stats();
      return current.calls_created_at.length === 8 ? current : undefined;
    }, 20_000);
    expect(stats.rate_limited).toBe(0);
    const span = stats.calls_created_at.at(-1)! - stats.calls_created_at[0]!;
    const interval = (1000 / configured) * RATE_HEADROOM;
    // Paced (7 intervals between 8 calls, less arrival jitter), not idled: a pacer that waited an
    // interval more per call would take twice as long. The margin is the stack's event loop under a
    // loaded CI (four workers on two cores): 2 s was once 61 ms short.
    expect(span).toBeGreaterThan(7 * interval - 1_000);
    expect(span).toBeLessThan(7 * interval + 3_500);
  }, 60_000);

  it('dials again later a call the provider refused over its rate (429), instead of failing it', async () => {
    // The provider allows 1 call per second; the config claims 10, so most dials are refused at first.
    const own = await ownTwilioAccount(1);
    const org = await newOrganization('Over the rate', 10);
    const agent = await newAgent(org, 'Over the rate');
    const stored = await api.request('PUT', '/telephony-configs', {
      key: org.key,
      body: {
        credentials: { provider: 'twilio', account_sid: own.sid, auth_token: own.token },
        caller_id: own.number,
        calls_per_second: 10,
      },
    });
    expect(stored.status).toBe(200);
    const placements = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        api.request('POST', `/agents/${agent.public_id}/calls`, {
          key: org.key,
          body: { phone_number: daytimeNumber(9, index), initial_context: {} },
        }),
      ),
    );
    expect(placements.map((placement) => placement.status)).toEqual(Array(10).fill(200));
    const stats = await eventually(async () => {
      const current = await own.stats();
      return current.calls_created_at.length === 10 ? current : undefined;
    }, 40_000);
    expect(stats.rate_limited).toBeGreaterThan(0);
    for (const placement of placements) {
      const run = await repositoryRun(org, agent.id, (placement.body as { workflow_run_id: number }).workflow_run_id);
      expect(run?.provider_call_id).toMatch(/^CA/);
    }
  }, 60_000);

  it('reserves send slots one interval apart under concurrent dialers, in a few shared writes, and hands back slots too far ahead', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { reserveCallSlot } = await import('../../shared/repositories/call-rate.ts');
    const { db } = await import('../../shared/repositories/table.ts');
    let writes = 0;
    db().middlewareStack.add(
      (next) => (args) => {
        writes += 1;
        return next(args);
      },
      { step: 'initialize', name: 'pacingTestWrites' },
    );
    const account = `twilio:AC-pacing-${Date.now()}`;
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 20 }, () => reserveCallSlot(account, 5, 10_000, () => now)));
    db().middlewareStack.remove('pacingTestWrites');
    const slots = results.map((result) => ('slotAt' in result ? result.slotAt : -1)).sort((a, b) => a - b);
    expect(slots).toEqual(Array.from({ length: 20 }, (_, index) => now + index * slotIntervalMs(5)));
    // The dialers of this process share their writes: the first takes the idle account's slot, the
    // 19 that arrived meanwhile take theirs together (one refused write each before).
    expect(writes).toBeLessThanOrEqual(3);
    // 20 slots at 5 per second fill 4.4 s: a dialer allowed to wait 1 s gets no slot, only the wait.
    const later = await reserveCallSlot(account, 5, 1_000, () => now);
    expect(later).toEqual({ waitMs: 20 * slotIntervalMs(5) });
  }, 60_000);

  it('gives an idle account its slot now, queues the next one an interval later, and saves no quiet period up', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { reserveCallSlot } = await import('../../shared/repositories/call-rate.ts');
    const account = `twilio:AC-idle-${Date.now()}`;
    expect(await reserveCallSlot(account, 2, 5_000, () => 1_000)).toEqual({ slotAt: 1_000 });
    expect(await reserveCallSlot(account, 2, 5_000, () => 1_010)).toEqual({ slotAt: 1_000 + slotIntervalMs(2) });
    expect(await reserveCallSlot(account, 2, 5_000, () => 60_000)).toEqual({ slotAt: 60_000 });
    expect(await reserveCallSlot(account, 2, 5_000, () => 60_000)).toEqual({ slotAt: 60_000 + slotIntervalMs(2) });
  }, 60_000);

  it('takes a slot up to the burst tolerance behind now (the call goes at once), never one further behind', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { reserveCallSlot } = await import('../../shared/repositories/call-rate.ts');
    const account = `twilio:AC-burst-${Date.now()}`;
    const interval = slotIntervalMs(20);
    expect(burstToleranceMs(20)).toBe(475);
    expect(await reserveCallSlot(account, 20, 5_000, () => 1_000)).toEqual({ slotAt: 1_000 });
    // 400 ms later the next free slot (1,000 + interval) is within the tolerance behind: it is taken.
    expect(await reserveCallSlot(account, 20, 5_000, () => 1_400)).toEqual({ slotAt: 1_000 + interval });
    expect(await reserveCallSlot(account, 20, 5_000, () => 1_400)).toEqual({ slotAt: 1_000 + 2 * interval });
    // Further behind than the tolerance: the quiet period is not saved up, the slot is now.
    expect(await reserveCallSlot(account, 20, 5_000, () => 3_000)).toEqual({ slotAt: 3_000 });
  }, 60_000);
});
