import { describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();

describe.skipIf(needsLocalStack)('campaign crash recovery', () => {
  it('starts the call of an attempt claimed just before a crash, once, and applies its outcome', async () => {
    const org = await newOrganization('Recovery', 5);
    const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Recovering' } });
    const { body: campaign } = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'Crashed mid-dispatch',
        workflow_id: agent.id,
        source_type: 'manual',
        retry_config: { enabled: false },
        manual_contacts: [{ phone_number: daytimeNumber(7, 6) }, { phone_number: daytimeNumber(8, 6) }],
      },
    });

    // A previous engine step claimed row 1 with its run in one transaction, then died before
    // starting the call's lifecycle execution: the run is in progress and was never dialed.
    Object.assign(process.env, inject('stackEnv'));
    const contacts = await import('../../shared/repositories/campaigns.ts');
    const runRecords = await import('../../shared/repositories/runs.ts');
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { newRun } = await import('../../shared/services/new-run.ts');
    const { getAgent } = await import('../../shared/services/agents.ts');
    const claimedAt = new Date(Date.now() - 120_000).toISOString();
    const [row] = (await contacts.listContacts(org.organizationId, campaign.id, 0, 1)).items;
    const runId = await nextId('run');
    const run = newRun(org.organizationId, await getAgent(org.organizationId, String(agent.id)), {
      id: runId,
      name: `Call to ${row!.e164}`,
      mode: 'phone',
      status: 'in_progress',
      phone_number: row!.e164,
      from_number: null,
      created_at: claimedAt,
      logs: [],
      campaign: { campaign_id: campaign.id, row: 1, attempt: 1 },
      initialContext: {},
    });
    expect(
      await runRecords.insertRun(run, true, [
        contacts.contactClaimItem(org.organizationId, campaign.id, row!, runId, claimedAt),
      ]),
    ).toBe(true);

    await api.request('POST', `/campaigns/${campaign.id}/start`, { key: org.key });
    await eventually(
      async () => {
        const current = await api.request('GET', `/campaigns/${campaign.id}`, { key: org.key });
        return current.body.state === 'completed' ? true : undefined;
      },
      30_000,
      250,
    );

    const report = await api.request('GET', `/campaigns/${campaign.id}/report`, { key: org.key });
    expect(
      report.body.items.map((row: { status: string; attempts: number; run_id: number }) => [row.status, row.attempts]),
    ).toEqual([
      ['busy', 1],
      ['no_answer', 1],
    ]);
    expect(report.body.items[0].run_id).toBe(runId);
    const runs = await api.request('GET', `/agents/${agent.id}/conversations`, { key: org.key });
    expect(runs.body.total_count).toBe(2);
  });
});
