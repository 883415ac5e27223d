import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { endUserWithScan } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

/** No lost updates: two writers on the same item, each change kept. */
const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Concurrent writers');
});

const newAgent = async (name: string) =>
  (await api.request('POST', '/agents', { key: org.key, body: { name } })).body as { id: number; public_id: string };
const startConversation = (agentId: string) =>
  api.request('POST', `/agents/${agentId}/conversations`, { key: org.key, body: { mode: 'chat' } });
const totalRuns = async (agentId: number) =>
  (await api.request('GET', `/agents/${agentId}`, { key: org.key })).body.total_runs as number;

async function repositories() {
  Object.assign(process.env, inject('stackEnv'));
  return {
    agents: await import('../../shared/repositories/agents.ts'),
    numbers: await import('../../shared/services/numbers.ts'),
    organizations: await import('../../shared/repositories/organizations.ts'),
  };
}

describe.skipIf(needsLocalStack)('agents: an update changes only its own fields', () => {
  it('keeps a run counted between the read and the write of an update', async () => {
    const { agents } = await repositories();
    const agent = await newAgent('Interleaved');
    const read = (await agents.getAgent(org.organizationId, agent.id))!;
    // The second writer: a run placed after the update read the agent.
    expect((await startConversation(agent.public_id)).status).toBeLessThan(300);
    const updated = await agents.updateAgentFields(
      org.organizationId,
      agent.id,
      { name: 'Renamed', updated_at: new Date().toISOString() },
      read.updated_at,
    );
    expect(updated).toMatchObject({ name: 'Renamed', total_runs: 1 });
    // The archive's write, from the same stale read, is refused rather than lost.
    expect(
      await agents.updateAgentFields(
        org.organizationId,
        agent.id,
        { status: 'archived', updated_at: new Date().toISOString() },
        read.updated_at,
      ),
    ).toBeUndefined();
  });

  it('counts every run placed while the agent is edited, renamed and archived', async () => {
    const agent = await newAgent('Busy');
    const edits = (async () => {
      for (const name of ['One', 'Two', 'Three'])
        expect(
          (
            await api.request('PATCH', `/agents/${agent.public_id}`, {
              key: org.key,
              body: { name, workflow_definition: { greeting: name } },
            })
          ).status,
        ).toBe(200);
      expect((await api.request('POST', `/agents/${agent.public_id}/archive`, { key: org.key })).status).toBe(200);
    })();
    const runs = await Promise.all(Array.from({ length: 12 }, () => startConversation(agent.public_id)));
    await edits;
    const created = runs.filter((response) => response.status < 300).length;
    expect(created).toBeGreaterThan(0);
    expect(await totalRuns(agent.id)).toBe(created);
    expect((await api.request('GET', `/agents/${agent.id}`, { key: org.key })).body).toMatchObject({
      name: 'Three',
      status: 'archived',
      workflow_definition: { greeting: 'Three' },
    });
  });
});

describe.skipIf(needsLocalStack)('phone numbers: review and assignment', () => {
  /** A pending number; `HOLD…` is held in review by the local reviewers, `SILENT…` approved without a callback. */
  async function pendingNumber(documentNumber = 'HOLD-ABC123456') {
    const endUser = await endUserWithScan(org.key, documentNumber);
    const { organizations } = await repositories();
    await organizations.addBalance(org.organizationId, 4);
    const market = await api.request('GET', '/phone-numbers/marketplace?country_code=PL&number_type=mobile', {
      key: org.key,
    });
    const owned = new Set(
      (
        (await api.request('GET', '/phone-numbers?limit=100', { key: org.key })).body.items as {
          phone_number: string;
        }[]
      ).map((number) => number.phone_number),
    );
    // Another suite of this stack may buy the same offer meanwhile: take the first one still free.
    let bought: { status: number; body: Record<string, unknown> } | undefined;
    for (const offer of (market.body.items as { phone_number: string }[]).filter(
      (item) => !owned.has(item.phone_number),
    )) {
      bought = await api.request('POST', '/phone-numbers/marketplace/purchase', {
        key: org.key,
        body: {
          phone_number: offer.phone_number,
          country_code: 'PL',
          number_type: 'mobile',
          end_user_id: 7,
          consent: true,
          end_user: endUser,
        },
      });
      if (bought.status !== 409) break;
    }
    expect(bought?.body).toMatchObject({ status: 'pending' });
    return bought!.body as unknown as { id: number };
  }
  const balance = async () =>
    (await api.request('GET', '/phone-numbers/setup', { key: org.key })).body.balance_usd as number;

  it('refunds a rejected number once when two rejections race', async () => {
    const { numbers } = await repositories();
    const number = await pendingNumber();
    const before = await balance();
    const results = await Promise.allSettled([
      numbers.reviewNumber(org.organizationId, number.id, 'reject'),
      numbers.reviewNumber(org.organizationId, number.id, 'reject'),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(
      results
        .filter((result) => result.status === 'rejected')
        .map((result) => (result as PromiseRejectedResult).reason.name),
    ).toEqual(['ConflictError']);
    expect(await balance()).toBeCloseTo(before + 4, 5);
    expect((await api.request('GET', `/phone-numbers/${number.id}`, { key: org.key })).body).toMatchObject({
      status: 'rejected',
    });
  });

  it('never refunds when an approval wins the race against a rejection', async () => {
    const { numbers } = await repositories();
    const number = await pendingNumber('SILENT-race');
    // An approval buys the number, so it needs the provider's: wait until the provider has given it.
    const { reviewStatus } = await import('../../shared/telephony/number-marketplace.ts');
    const { getNumber } = await import('../../shared/repositories/numbers.ts');
    const reference = (await getNumber(org.organizationId, number.id))!.review_reference!;
    await eventually(async () => ((await reviewStatus(reference)).decision === 'approve' ? true : undefined));
    const before = await balance();
    const results = await Promise.allSettled([
      numbers.reviewNumber(org.organizationId, number.id, 'approve'),
      numbers.reviewNumber(org.organizationId, number.id, 'reject'),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const status = (await api.request('GET', `/phone-numbers/${number.id}`, { key: org.key })).body.status as string;
    expect(await balance()).toBeCloseTo(status === 'rejected' ? before + 4 : before, 5);
  });

  it('assigns a number by changing only its assignment, and 404s a missing one', async () => {
    const agent = await newAgent('Answering');
    const other = await newAgent('Other');
    const number = await pendingNumber();
    const [first, second] = await Promise.all([
      api.request('POST', '/phone-numbers/assign', {
        key: org.key,
        body: { phone_number_id: number.id, workflow_id: agent.id },
      }),
      api.request('POST', '/phone-numbers/assign', {
        key: org.key,
        body: { phone_number_id: number.id, workflow_id: other.id },
      }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const stored = (await api.request('GET', `/phone-numbers/${number.id}`, { key: org.key })).body;
    expect([agent.id, other.id]).toContain(stored.workflow_id);
    expect(stored).toMatchObject({ status: 'pending', order_status: 'in_review' });
    expect(
      (
        await api.request('POST', '/phone-numbers/assign', {
          key: org.key,
          body: { phone_number_id: 999_999, workflow_id: agent.id },
        })
      ).status,
    ).toBe(404);
  });
});
