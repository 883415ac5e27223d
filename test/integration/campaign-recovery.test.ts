import { describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();

describe.skipIf(needsLocalStack)('campaign crash recovery', () => {
  it('re-places a claimed attempt whose placement outcome was lost, without dialing it twice', async () => {
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

    // A previous engine step claimed row 1 and placed its call, then died before recording the run.
    Object.assign(process.env, inject('stackEnv'));
    const contacts = await import('../../shared/repositories/campaigns.ts');
    const { placeCallOnce } = await import('../../shared/services/idempotent-calls.ts');
    const claimedAt = new Date(Date.now() - 120_000).toISOString();
    expect(
      await contacts.updateContact(org.organizationId, campaign.id, 1, { statuses: ['pending'], attempts: 0 }, {
        status: 'dialing',
        attempts: 1,
        last_attempt_at: claimedAt,
        next_attempt_at: null,
        run_id: null,
      }),
    ).toBe(true);
    const first = await placeCallOnce(
      org.organizationId,
      `campaign-${campaign.id}-1-1`,
      String(agent.id),
      { phone_number: daytimeNumber(7, 6), initial_context: {} },
      { campaign_id: campaign.id, row: 1, attempt: 1 },
    );

    await api.request('POST', `/campaigns/${campaign.id}/start`, { key: org.key });
    await eventually(async () => {
      const current = await api.request('GET', `/campaigns/${campaign.id}`, { key: org.key });
      return current.body.state === 'completed' ? true : undefined;
    }, 30_000, 250);

    const report = await api.request('GET', `/campaigns/${campaign.id}/report`, { key: org.key });
    expect(report.body.items.map((row: { status: string; attempts: number; run_id: number }) => [row.status, row.attempts])).toEqual([
      ['busy', 1],
      ['no_answer', 1],
    ]);
    expect(report.body.items[0].run_id).toBe(first.workflow_run_id);
    const runs = await api.request('GET', `/agents/${agent.id}/conversations`, { key: org.key });
    expect(runs.body.total_count).toBe(2);
  });
});
