import { describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { distinctDaytimeNumbers } from '../support/phone-numbers.ts';
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
    const runs = {
      ...(await import('../../shared/repositories/runs-read.ts')),
      ...(await import('../../shared/repositories/runs-lifecycle.ts')),
    };
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { publishPendingEvents } = await import('../../shared/services/event-outbox.ts');
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
        { organizationId: run.organization_id, agentId: agent.id, runId: id },
        {
          status: 'busy',
          ended_at: endedAt,
          duration_seconds: 0,
          gathered_context: { call_disposition: 'busy' },
          recording_key: null,
          transcript_key: null,
          cost: null,
          log: { timestamp: endedAt, level: 'INFO', message: 'Call ended: busy' },
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

  it("confirms a campaign call's event in the transaction applying its outcome; the dispatcher dials what it places", async () => {
    const org = await newOrganization('Outbox campaign', 2);
    const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Dispatched' } });
    const created = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'Confirmed events',
        workflow_id: agent.id,
        source_type: 'manual',
        calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
        retry_config: { enabled: false },
        // Busy lines: each call ends at once, and the freed channel takes the next contact.
        manual_contacts: (await distinctDaytimeNumbers(5, 7)).map((phone_number) => ({ phone_number })),
      },
    });
    await api.request('POST', `/campaigns/${created.body.id}/start`, { key: org.key });
    await eventually(async () => {
      const campaign = await api.request('GET', `/campaigns/${created.body.id}`, { key: org.key });
      return campaign.body.state === 'completed' ? true : undefined;
    }, 60_000);

    Object.assign(process.env, inject('stackEnv'));
    const runs = {
      ...(await import('../../shared/repositories/runs-read.ts')),
      ...(await import('../../shared/repositories/runs-lifecycle.ts')),
    };
    const { listRunLogs } = await import('../../shared/repositories/run-logs.ts');
    const listed = await api.request('GET', `/agents/${agent.id}/conversations?limit=100`, { key: org.key });
    const ids: number[] = listed.body.items.map((run: { id: number }) => run.id);
    expect(ids).toHaveLength(5);
    // No outbox entry is left to publish again, however late the sweep looks.
    const pending = await runs.listRunsWithPendingEvents(new Date(Date.now() + 3_600_000).toISOString(), 1_000);
    expect(pending.filter((run) => ids.includes(run.id))).toEqual([]);
    for (const id of ids) {
      const run = (await runs.getRun(org.organizationId, agent.id, id))!;
      expect(run.status).toBe('busy');
      // Dialed by the function that placed it, without a call-lifecycle dial step: one dial, its id noted.
      expect(run.provider_call_id).toMatch(/^CA/);
      const logs = await listRunLogs({ organizationId: org.organizationId, agentId: agent.id, runId: id }, run.logs);
      expect(logs.filter((log) => log.message.startsWith('Dialing through')).map((log) => log.message)).toEqual([
        'Dialing through twilio',
      ]);
    }
  }, 90_000);
});
