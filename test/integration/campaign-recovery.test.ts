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
    const contacts = await import('../../shared/repositories/campaign-contacts.ts');
    const runRecords = await import('../../shared/repositories/runs-lifecycle.ts');
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

describe.skipIf(needsLocalStack)('a background import that cannot finish', () => {
  it.each([
    ['damaged', 'not json'],
    ['missing', undefined],
  ])(
    'ends import_failed when its stored copy is %s, and the campaign never dials',
    async (_case, stored) => {
      const org = await newOrganization('Import failure', 5);
      const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Importer' } });
      Object.assign(process.env, inject('stackEnv'));
      const repository = await import('../../shared/repositories/campaigns.ts');
      const files = await import('../../shared/repositories/run-files.ts');
      const { nextId } = await import('../../shared/repositories/counters.ts');
      const { engineStep } = await import('../../shared/services/campaign-engine.ts');
      // As the create request leaves a large source: the campaign importing, its contacts in S3.
      const id = await nextId('campaign');
      const importKey = `campaign-imports/org-${org.organizationId}/campaign-${id}.json`;
      const now = new Date().toISOString();
      await repository.insertCampaign(
        {
          id,
          organization_id: org.organizationId,
          name: 'Damaged import',
          goal: null,
          workflow_id: agent.id,
          state: 'importing',
          source_type: 'csv',
          source_id: 'upload',
          source_config: null,
          source_refresh_minutes: null,
          source_last_synced_at: now,
          source_sync_error: null,
          retry_config: null,
          calling_window: null,
          scheduled_start_at: null,
          total_rows: 1_500,
          processed_rows: 0,
          failed_rows: 0,
          created_at: now,
          started_at: null,
          completed_at: null,
          generation: 1,
          import_key: importKey,
          imported_rows: 0,
        },
        [],
        null,
      );
      if (stored !== undefined) await files.putRunFile(importKey, stored, 'application/json');

      const step = await engineStep({
        campaign: { organizationId: org.organizationId, campaignId: id },
        generation: 1,
        part: 0,
        step: 0,
      });
      expect(step).toEqual({ action: 'stop', reason: 'import_failed' });
      const { body: failed } = await api.request('GET', `/campaigns/${id}`, { key: org.key });
      expect(failed).toMatchObject({ state: 'import_failed', total_rows: 1_500, processed_rows: 0 });
      expect(failed.import_error).toMatch(stored === undefined ? /missing/ : /damaged/);
      expect(await files.readRunFileText(importKey)).toBeUndefined();
      expect((await api.request('POST', `/campaigns/${id}/start`, { key: org.key })).status).toBe(409);
      expect((await api.request('POST', `/campaigns/${id}/cancel`, { key: org.key })).status).toBe(409);
    },
    60_000,
  );
});

describe.skipIf(needsLocalStack)('run ids of concurrent dispatchers', () => {
  it('gives every dispatcher as many distinct ids as it asked for, while another one drains the pool', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { takeRunIds } = await import('../../shared/services/campaign-dispatch.ts');
    // Leave part of a prefetched block in the pool, then ask for more than it holds while
    // another dispatcher takes the rest during the allocation.
    await takeRunIds(1);
    const [large, drain, small] = await Promise.all([takeRunIds(40), takeRunIds(24), takeRunIds(5)]);
    expect(large).toHaveLength(40);
    expect(drain).toHaveLength(24);
    expect(small).toHaveLength(5);
    const all = [...large, ...drain, ...small];
    expect(all.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });
});
