import { describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();

describe.skipIf(needsLocalStack)('call.completed outbox', () => {
  it('publishes the event of a run that ended without it (a crash between the two), once', async () => {
    const org = await newOrganization('Outbox');
    const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Outboxed' } });
    const receiver = await startWebhookReceiver();
    await api.request('POST', '/webhooks', { key: org.key, body: { url: receiver.url } });

    // A call that ended in the table, then the process died before publishing call.completed.
    Object.assign(process.env, inject('stackEnv'));
    const runs = await import('../../shared/repositories/runs.ts');
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { publishPendingEvents } = await import('../../shared/services/call-completion.ts');
    const id = await nextId('run');
    const startedAt = new Date(Date.now() - 120_000).toISOString();
    const { newRun } = await import('../../shared/services/new-run.ts');
    const run = newRun(org.organizationId, agent, {
      id,
      name: 'Crashed',
      mode: 'phone',
      status: 'in_progress',
      phone_number: '+48601234567',
      from_number: null,
      created_at: startedAt,
      logs: [],
      campaign: null,
      initialContext: {},
    });
    expect(await runs.insertRun(run, true)).toBe(true);
    const endedAt = new Date(Date.now() - 90_000).toISOString();
    expect(
      await runs.finishRun(
        {
          ...run,
          status: 'busy',
          ended_at: endedAt,
          duration_seconds: 0,
          gathered_context: { call_disposition: 'busy' },
        },
        {
          run_id: id,
          workflow_id: agent.id,
          status: 'busy',
          started_at: startedAt,
          ended_at: endedAt,
          duration_seconds: 0,
          cost_usd: 0,
        },
      ),
    ).toBe(true);

    expect(await publishPendingEvents()).toBeGreaterThanOrEqual(1);
    const delivery = await eventually(() =>
      receiver.received.find((hook) => JSON.parse(hook.body).data.workflow_run_id === id),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'call.completed',
      data: { status: 'busy', workflow_run_id: id },
    });
    // Confirmed: a second pass sends nothing more for this run.
    expect(
      (await runs.listRunsWithPendingEvents(new Date().toISOString(), 100)).map((pending) => pending.id),
    ).not.toContain(id);
    await receiver.close();
  });
});
