import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { SESSION_TOKEN_SECONDS } from '../../shared/domain/browser-sessions.ts';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();

describe.skipIf(needsLocalStack)('a browser or chat session never connected', () => {
  it('is indexed by its credential expiry, and ended no_answer by the sweeper once it expired, billed nothing', async () => {
    const org = await newOrganization('Abandoned sessions');
    const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Waiting' } });
    const receiver = await startWebhookReceiver();
    await api.request('POST', '/webhooks', { key: org.key, body: { url: receiver.url } });
    Object.assign(process.env, inject('stackEnv'));
    const runs = {
      ...(await import('../../shared/repositories/runs-read.ts')),
      ...(await import('../../shared/repositories/runs-lifecycle.ts')),
    };
    const { keys } = await import('../../shared/repositories/keys.ts');
    const { db, tableName } = await import('../../shared/repositories/table.ts');
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { newRun } = await import('../../shared/services/new-run.ts');
    const { endUnconnectedSessions } = await import('../../shared/services/call-sweeper.ts');

    // A chat created now: the run waits in the index under its credential's expiry.
    const fresh = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
      key: org.key,
      body: { mode: 'chat' },
    });
    expect(fresh.status).toBe(200);
    const { Item: indexed } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.run(org.organizationId, agent.id, fresh.body.id) }),
    );
    expect(indexed).toMatchObject({
      status: 'created',
      gsi1pk: 'SESSIONS#UNCONNECTED',
      gsi1sk: `${fresh.body.session.expires_at}#${org.organizationId}#${agent.id}#${fresh.body.id}`,
    });

    // One created long enough ago that its credential expired unused.
    const createdAt = new Date(Date.now() - (SESSION_TOKEN_SECONDS + 120) * 1000).toISOString();
    const id = await nextId('run');
    const stale = newRun(org.organizationId, agent, {
      id,
      name: 'Never connected',
      mode: 'webrtc',
      status: 'created',
      phone_number: null,
      from_number: null,
      created_at: createdAt,
      logs: [],
      campaign: null,
      initialContext: {},
    });
    expect(await runs.insertRun(stale, false)).toBe(true);

    // The sweep (the scheduled sweeper may have got there first: either way the run ends once).
    await endUnconnectedSessions(new Date(), 'The session was never connected: its credential expired unused');
    const ended = (await api.request('GET', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key })).body;
    expect(ended).toMatchObject({
      status: 'no_answer',
      duration_seconds: 0,
      gathered_context: { call_disposition: 'no_answer' },
      cost: { currency: 'USD', telephony_usd: 0, platform_usd: 0, total_usd: 0 },
    });
    expect(ended.logs.at(-1).message).toMatch(/never connected: its credential expired unused/);
    const delivery = await eventually(() =>
      receiver.received.find((hook) => JSON.parse(hook.body).data.workflow_run_id === id),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'call.completed',
      data: { status: 'no_answer', workflow_run_id: id },
    });
    // Out of the index: no later sweep finds it; the fresh chat is untouched.
    const expired = await runs.listUnconnectedSessionsExpiredBefore(new Date().toISOString(), 1000);
    expect(expired.map((run) => run.id)).not.toContain(id);
    const still = await api.request('GET', `/agents/${agent.public_id}/conversations/${fresh.body.id}`, {
      key: org.key,
    });
    expect(still.body.status).toBe('created');
    await receiver.close();
  });
});
