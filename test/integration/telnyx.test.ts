import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_CALLER_SCRIPT } from '../../media/src/streams/caller-script.ts';
import { DEAD_AIR_PATIENCE_MS } from '../../local/carrier/callee-directory.ts';
import { apiClient, newOrganization, needsLocalStack, type TestOrganization } from '../support/api.ts';
import { inboundRun } from '../support/inbound-calls.ts';
import { daytimeNumber, endUserWithScan } from '../support/phone-numbers.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * Organizations with their own Telnyx account, through the local stack: the official `telnyx` SDK
 * at the local Telnyx (`local/carrier/telnyx-wire.ts`), which speaks Call Control (REST commands,
 * Ed25519-signed webhooks) and media streaming like Telnyx.
 */
const api = apiClient();

/** A phone calling a Telnyx number: the local Telnyx sends `call.initiated` and waits for the platform's command. */
async function ring(
  from: string,
  to: string,
  options: { hang_up_first?: boolean; deliver_twice?: boolean } = {},
): Promise<{ answer: 'answered' | 'rejected' | 'caller_hung_up'; call_control_id: string }> {
  const response = await fetch(`${inject('telnyxOrigin')}/_simulator/incoming-calls`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ from, to, ...options }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { answer: 'answered' | 'rejected' | 'caller_hung_up'; call_control_id: string };
}

const newAgent = async (org: TestOrganization, name: string) =>
  (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name, workflow_definition: { greeting: 'Hello.', steps: ['Ok?'], closing: 'Bye.' } },
    })
  ).body as { id: number; public_id: string };

const finished = (org: TestOrganization, agent: { public_id: string }, runId: number, timeoutMs?: number) =>
  eventually(async () => {
    const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
    return run.body.status !== 'in_progress' ? run.body : undefined;
  }, timeoutMs);

describe.skipIf(needsLocalStack)("an organization's own Telnyx account", () => {
  it('is checked with Telnyx, then carries a call through Call Control and media streaming to completed', async () => {
    const org = await newOrganization('Own Telnyx', 2);
    const agent = await newAgent(org, 'Telnyx line');
    const callerId = '+442079460555';
    const account = await telnyxAccount([callerId]);

    const wrongKey = await useTelnyx(org, { ...account, api_key: 'KEY-never-issued' }, callerId);
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.body.detail[0].loc).toEqual(['body', 'credentials']);
    const notOwned = await useTelnyx(org, account, '+442079460556');
    expect(notOwned.status).toBe(422);
    expect(notOwned.body.detail[0].loc).toEqual(['body', 'caller_id']);
    const stored = await useTelnyx(org, account, callerId);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ provider: 'telnyx', account_id: account.connection_id, caller_id: callerId });
    expect(JSON.stringify(stored.body)).not.toContain(account.api_key);

    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(3), initial_context: {} },
    });
    expect(placed.status).toBe(200);
    const runId = placed.body.workflow_run_id as number;
    const run = await finished(org, agent, runId, 40_000);
    expect(run).toMatchObject({ status: 'completed', recording_url: expect.stringMatching(/recording\.wav$/) });
    // Dialed on the organization's Telnyx account, with its caller id.
    expect((await account.stats()).calls_created_at).toHaveLength(1);
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
      key: org.key,
    });
    expect(transcript.status).toBe(200);
    // The agent's audio reached the callee, whose answer came back through Telnyx media frames.
    expect(JSON.stringify(transcript.body)).toContain(DEFAULT_CALLER_SCRIPT[0]);
    // The agent ended the call. Closing a Telnyx media stream leaves the call up (the local Telnyx
    // keeps it, billed, until the callee gives up on the dead air): the media service hung it up
    // through Call Control as soon as the stream closed.
    const ending = await eventually(async () => (await account.stats()).calls_ended[0]);
    expect(ending.hangup_source).toBe('caller');
    expect(ending.hung_up_at - ending.stream_ended_at!).toBeLessThan(DEAD_AIR_PATIENCE_MS / 2);
    expect(run.logs.map((log: { message: string }) => log.message)).toContainEqual(
      expect.stringMatching(/^Hung up at telnyx: the agent ended the call/),
    );
  }, 60_000);

  it('carries the keys a callee presses (Telnyx dtmf stream events) to the agent', async () => {
    const org = await newOrganization('Telnyx keys', 2);
    const agent = (
      await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Telnyx account line',
          workflow_definition: { greeting: 'Your account number, please.', steps: ['Thank you.'] },
          workflow_configurations: { keypad: { end_key: '#' } },
        },
      })
    ).body as { id: number; public_id: string };
    const callerId = '+442079460558';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(org, account, callerId)).status).toBe(200);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: `${daytimeNumber(6, 3).slice(0, -3)}346`, initial_context: {} },
    });
    const run = await finished(org, agent, placed.body.workflow_run_id as number, 40_000);
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
      key: org.key,
    });
    expect(transcript.body.segments.slice(0, 3).map(({ text }: { text: string }) => text)).toEqual([
      'Your account number, please.',
      '[pressed 1234]',
      'Thank you.',
    ]);
  }, 60_000);

  it('the watchdog that ends a forgotten run hangs up its call at Telnyx too', async () => {
    const org = await newOrganization('Telnyx watchdog', 2);
    const agent = await newAgent(org, 'Forgotten line');
    const callerId = '+442079460557';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(org, account, callerId)).status).toBe(200);
    // The watchdog's task, as its state machine runs it when no completion report came in time;
    // loaded before the call is placed, so a slow import on a busy machine cannot let the call
    // run its course first.
    Object.assign(process.env, inject('stackEnv'));
    const [{ endForgottenCall }, runs] = await Promise.all([
      import('../../shared/services/call-control.ts'),
      import('../../shared/repositories/runs-read.ts'),
    ]);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(4), initial_context: {} },
    });
    const runId = placed.body.workflow_run_id as number;
    const ref = { organizationId: org.organizationId, agentId: agent.id, runId };
    // Null until the provider has accepted the dial.
    await eventually(
      async () => (await runs.getRun(ref.organizationId, ref.agentId, runId))?.provider_call_id ?? undefined,
    );
    const calledAt = Date.now();
    expect(await endForgottenCall(ref)).toBe(true);
    const run = await finished(org, agent, runId);
    expect(run.status).toBe('failed');
    expect(run.logs.at(-1).message).toContain('ended by the watchdog');
    const ending = await eventually(async () => (await account.stats()).calls_ended[0]);
    expect(ending.hangup_source).toBe('caller');
    expect(ending.hung_up_at - calledAt).toBeLessThan(5000);
    expect(await endForgottenCall(ref)).toBe(false); // a second look finds it ended
  }, 60_000);

  it('ends unanswered calls with the outcome Telnyx reports (call.hangup cause, answering machine detection)', async () => {
    const org = await newOrganization('Telnyx outcomes', 3);
    const agent = await newAgent(org, 'Telnyx outcomes');
    const callerId = '+442079460557';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(org, account, callerId)).status).toBe(200);
    const outcomes = await Promise.all(
      [7, 8, 9].map(async (digit) => {
        const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
          key: org.key,
          body: { phone_number: daytimeNumber(digit), initial_context: {} },
        });
        return (await finished(org, agent, placed.body.workflow_run_id)).status;
      }),
    );
    // 9: an answering machine, reported by Telnyx's AMD (call.machine.detection.ended); the agent has
    // no voicemail message, so the platform hangs up.
    expect(outcomes).toEqual(['busy', 'no_answer', 'voicemail']);
  });
});

describe.skipIf(needsLocalStack)('incoming calls on a Telnyx account', () => {
  let org: TestOrganization;
  let agent: { id: number; public_id: string };
  let account: Awaited<ReturnType<typeof telnyxAccount>>;
  const numbers: Record<'active' | 'pending' | 'unassigned', string> = { active: '', pending: '', unassigned: '' };

  /** A number of the organization (bought through the marketplace), assigned to the agent unless said otherwise. */
  const buy = async (country: string, type: string, assign: boolean, extra: object = {}) => {
    const market = await api.request('GET', `/phone-numbers/marketplace?country_code=${country}&number_type=${type}`, {
      key: org.key,
    });
    // Offers from the end: other test files buy the first ones at the same time.
    const offer = market.body.items.at(assign ? -2 : -3);
    const bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
      key: org.key,
      body: { phone_number: offer.phone_number, country_code: country, number_type: type, end_user_id: 1, ...extra },
    });
    expect(bought.status).toBe(200);
    if (assign) {
      const assigned = await api.request('POST', '/phone-numbers/assign', {
        key: org.key,
        body: { phone_number_id: bought.body.id, workflow_id: agent.id },
      });
      expect(assigned.status).toBe(200);
    }
    return bought.body.phone_number as string;
  };

  beforeAll(async () => {
    org = await newOrganization('Telnyx reception', 1);
    Object.assign(process.env, inject('stackEnv'));
    const organizations = await import('../../shared/repositories/organizations.ts');
    await organizations.addBalance(org.organizationId, 20);
    agent = await newAgent(org, 'Telnyx receptionist');
    numbers.active = await buy('GB', 'local', true);
    numbers.pending = await buy('PL', 'mobile', true, { consent: true, end_user: await endUserWithScan(org.key) });
    numbers.unassigned = await buy('GB', 'local', false);
    // The organization's numbers are on its own Telnyx account, whose application rings the platform.
    account = await telnyxAccount(Object.values(numbers));
    expect((await useTelnyx(org, account, numbers.active)).status).toBe(200);
  });

  it("answers with a bidirectional stream: an inbound run with the caller's number, counted as a channel", async () => {
    const caller = '+48601234575';
    const call = await ring(caller, numbers.active);
    expect(call.answer).toBe('answered');
    const run = await inboundRun(api, org, agent, caller, numbers.active);

    // The organization's one channel is taken: the next caller gets busy.
    expect((await ring('+48601234576', numbers.active)).answer).toBe('rejected');

    const ended = await finished(org, agent, run.id, 40_000);
    expect(ended).toMatchObject({ status: 'completed', recording_url: expect.stringMatching(/recording\.wav$/) });
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
      key: org.key,
    });
    expect(JSON.stringify(transcript.body)).toContain(DEFAULT_CALLER_SCRIPT[0]);
    const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    expect(list.body.items).toHaveLength(1);
  }, 60_000);

  it('keeps one run when Telnyx delivers the incoming call twice (the repeated answer command runs once)', async () => {
    const caller = '+48601234581';
    expect((await ring(caller, numbers.active, { deliver_twice: true })).answer).toBe('answered');
    const run = await eventually(async () => {
      const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
      const found = list.body.items.filter((each: { phone_number: string }) => each.phone_number === caller);
      return found.length && found[0].status !== 'in_progress' ? found : undefined;
    }, 40_000);
    expect(run).toHaveLength(1);
    expect(run[0]).toMatchObject({ mode: 'inbound', status: 'completed' });
  }, 60_000);

  it('ends the run at once, freeing its channel, when the caller hangs up before the answer reaches Telnyx', async () => {
    const caller = '+48601234579';
    expect((await ring(caller, numbers.active, { hang_up_first: true })).answer).toBe('caller_hung_up');
    const run = await eventually(async () => {
      const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
      const found = list.body.items.find((each: { phone_number: string }) => each.phone_number === caller);
      return found?.status === 'failed' ? found : undefined;
    });
    expect(run).toMatchObject({ mode: 'inbound', status: 'failed' });
    // The one channel is free again: the next caller is answered.
    const next = await ring('+48601234580', numbers.active);
    expect(next.answer).toBe('answered');
    const answered = await eventually(async () => {
      const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
      const found = list.body.items.find((each: { phone_number: string }) => each.phone_number === '+48601234580');
      return found && found.status !== 'in_progress' ? found : undefined;
    }, 40_000);
    expect(answered.status).toBe('completed');
  }, 60_000);

  it('rejects calls to a pending or an unassigned number without creating a run', async () => {
    expect((await ring('+48601234577', numbers.pending)).answer).toBe('rejected');
    expect((await ring('+48601234577', numbers.unassigned)).answer).toBe('rejected');
    const list = await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key });
    expect(list.body.items.filter((run: { phone_number: string }) => run.phone_number === '+48601234577')).toEqual([]);
  });

  it('refuses Telnyx webhooks without a valid Ed25519 signature (403)', async () => {
    const body = JSON.stringify({
      data: {
        event_type: 'call.initiated',
        occurred_at: new Date().toISOString(),
        payload: {
          call_control_id: 'v3:forged',
          direction: 'incoming',
          from: '+48601234578',
          to: numbers.active,
          connection_id: account.connection_id,
        },
      },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const forged = await api.request('POST', '/telephony/telnyx/voice', {
      body,
      headers: {
        'Content-Type': 'application/json',
        'telnyx-timestamp': timestamp,
        'telnyx-signature-ed25519': Buffer.alloc(64).toString('base64'),
      },
    });
    expect(forged.status).toBe(403);
    const status = await api.request('POST', `/telephony/telnyx/status?run=${org.organizationId}.${agent.id}.1`, {
      body,
      headers: { 'Content-Type': 'application/json', 'telnyx-timestamp': timestamp },
    });
    expect(status.status).toBe(403);
  });
});
