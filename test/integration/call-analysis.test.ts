import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { parse } from 'csv-parse/sync';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';
import { eventually, startWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Post-call analysis end to end on the local stack: the agent's plan, a chat, a Twilio call, a
 * Telnyx call and a campaign call analyzed by the (fake) model after they end; the run, the
 * `call.completed` webhook and the campaign report carry it; a failing model is retried, then says so.
 */
const api = apiClient();
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

const PLAN = {
  summary_prompt: 'Summarize in one sentence.',
  structured_data_schema: {
    type: 'object',
    properties: {
      opening_hours_asked: { type: 'boolean' },
      availability_request: { type: 'string' },
      callback_wanted: { type: 'boolean' },
    },
    required: ['opening_hours_asked', 'availability_request', 'callback_wanted'],
  },
  success_criteria: 'The person asked about availability.',
};
/** What the fake model makes of the simulated callee's script (local/fakes/openai-compatible.ts). */
const CALLEE_ANALYSIS = {
  status: 'completed',
  summary: expect.stringContaining('the person said: Hello, who is this? / What are your opening hours?'),
  structured_data: {
    opening_hours_asked: true,
    availability_request: 'Please check availability for tomorrow.',
    callback_wanted: false,
  },
  success_evaluation: { successful: true, reason: 'The conversation mentions "availability".' },
  error: null,
  attempts: 1,
  completed_at: expect.any(String),
};

async function newAgent(org: TestOrganization, analysis: Record<string, unknown> | undefined) {
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Analyzed',
      workflow_definition: {
        greeting: 'Hi, Smile clinic here.',
        prompt: 'You book dental visits.',
        steps: ['Would you like to book a visit?', 'Anything else?', 'Shall I book it?'],
        closing: 'Bye.',
      },
      call_disposition_codes: { booked: 'Visit booked' },
      workflow_configurations: { silence_timeout_seconds: 6, ...(analysis ? { analysis } : {}) },
    },
  });
  expect(created.status).toBe(201);
  return created.body as { id: number; public_id: string; workflow_configurations: Record<string, unknown> };
}

async function subscribe(org: TestOrganization) {
  const webhook = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: receiver.url, events: ['call.completed', 'call.failed'] },
  });
  expect(webhook.status).toBe(201);
}

const conversation = (org: TestOrganization, agent: { public_id: string }, runId: number) =>
  api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });

/** The run once its analysis is no longer pending. */
const analyzed = (org: TestOrganization, agent: { public_id: string }, runId: number, timeoutMs = 40_000) =>
  eventually(
    async () => {
      const run = (await conversation(org, agent, runId)).body;
      return run.analysis && run.analysis.status !== 'pending' ? run : undefined;
    },
    timeoutMs,
    200,
  );

/** The webhooks the run's `call.completed` (and `call.failed`) sent. */
const webhooksOf = (runId: number) =>
  receiver.received
    .map((delivery) => JSON.parse(delivery.body) as { type: string; data: Record<string, any> })
    .filter((event) => event.data.workflow_run_id === runId);

/** A chat through the session: the person's messages, then goodbye. */
async function chat(org: TestOrganization, agent: { public_id: string }, messages: string[]) {
  const created = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
    key: org.key,
    body: { mode: 'chat', name: 'Analyzed chat' },
  });
  expect(created.status).toBe(200);
  const { id, session } = created.body as { id: number; session: { url: string; run_ref: string; token: string } };
  const ws = new WebSocket(session.url);
  let texts = 0;
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { event: string };
    if (frame.event === 'mark') ws.send(JSON.stringify(frame));
    if (frame.event === 'text') texts += 1;
  });
  const closed = new Promise((resolve) => ws.on('close', resolve));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(
    JSON.stringify({
      event: 'start',
      start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } },
    }),
  );
  // Each message once the agent has answered the one before (the greeting first).
  await eventually(() => (texts > 0 ? true : undefined));
  for (const text of [...messages, 'Thank you, goodbye.']) {
    const before = texts;
    ws.send(JSON.stringify({ event: 'message', text }));
    if (text !== 'Thank you, goodbye.') await eventually(() => (texts > before ? true : undefined));
  }
  await closed;
  return id;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

describe.skipIf(needsLocalStack)('post-call analysis', () => {
  it('is refused when its schema is not a usable JSON schema of an object', async () => {
    const org = await newOrganization('Analysis validation', 1);
    const refused = await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Bad plan',
        workflow_definition: { greeting: 'Hi.' },
        workflow_configurations: { analysis: { structured_data_schema: { type: 'array' } } },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({
      loc: ['body', 'workflow_configurations', 'analysis', 'structured_data_schema'],
      msg: expect.stringContaining('JSON schema of type object'),
    });
  });

  it('analyzes a chat after it ends; the run and the one call.completed webhook carry it', async () => {
    const org = await newOrganization('Analysis chat', 2);
    await subscribe(org);
    const agent = await newAgent(org, PLAN);
    expect(agent.workflow_configurations.analysis).toEqual(PLAN);
    const runId = await chat(org, agent, ['What are your opening hours?', 'Is there availability on Tuesday?']);
    // The run completed without waiting for the model.
    const ended = await eventually(async () => {
      const body = (await conversation(org, agent, runId)).body;
      return body.status !== 'in_progress' ? body : undefined;
    });
    expect(ended.status).toBe('completed');
    expect(['pending', 'completed']).toContain(ended.analysis.status);

    const run = await analyzed(org, agent, runId);
    expect(run.analysis).toEqual({
      ...CALLEE_ANALYSIS,
      summary: expect.stringContaining('What are your opening hours? / Is there availability on Tuesday?'),
      structured_data: {
        opening_hours_asked: true,
        availability_request: 'Is there availability on Tuesday?',
        callback_wanted: false,
      },
    });
    const events = await eventually(() => (webhooksOf(runId).length ? webhooksOf(runId) : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(webhooksOf(runId)).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'call.completed', data: { status: 'completed', analysis: run.analysis } });
  });

  it('retries a failing model, then records the failure and still sends the webhook', { timeout: 60_000 }, async () => {
    const org = await newOrganization('Analysis failure', 1);
    await subscribe(org);
    const agent = await newAgent(org, { summary_prompt: 'Summarize for the ANALYSIS-MODEL-DOWN test.' });
    const { LLM_API_URL: modelUrl, LLM_API_KEY: modelKey } = inject('stackEnv');
    const armed = await fetch(new URL('../fake/faults', `${modelUrl}/`), {
      method: 'POST',
      headers: { Authorization: `Bearer ${modelKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ system_contains: 'ANALYSIS-MODEL-DOWN' }),
    });
    expect(armed.status).toBe(204);

    const runId = await chat(org, agent, ['Hello there.']);
    const run = await analyzed(org, agent, runId);
    expect(run.status).toBe('completed');
    expect(run.analysis).toEqual({
      status: 'failed',
      summary: null,
      structured_data: null,
      success_evaluation: null,
      error: expect.stringMatching(/^The platform language model answered 500/),
      attempts: 3,
      completed_at: expect.any(String),
    });
    const [event] = await eventually(() => (webhooksOf(runId).length ? webhooksOf(runId) : undefined));
    expect(event).toMatchObject({ type: 'call.completed', data: { analysis: { status: 'failed', attempts: 3 } } });
  });

  it('records an analysis whose function failed every attempt as failed once past its deadline, and the webhooks go', async () => {
    const org = await newOrganization('Analysis abandoned', 1);
    await subscribe(org);
    const agent = await newAgent(org, PLAN);
    const created = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
      key: org.key,
      body: { mode: 'chat', name: 'Abandoned analysis' },
    });
    const runId = created.body.id as number;
    Object.assign(process.env, inject('stackEnv'));
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db, tableName } = await import('../../shared/repositories/table.ts');
    const { keys } = await import('../../shared/repositories/keys.ts');
    const { initialAnalysis } = await import('../../shared/domain/call-analysis.ts');
    const runs = await import('../../shared/repositories/runs-read.ts');
    const { publishPendingEvents } = await import('../../shared/services/event-outbox.ts');
    const listed = async (at: Date) =>
      (await runs.listRunsWithPendingEvents(at.toISOString(), 100)).some((pending) => pending.id === runId);

    // As if the chat had ended and its analysis function had crashed on every attempt: the event
    // was published (noted on the run, which stays in the outbox's index while analyzing), no
    // analysis was recorded, and so no webhook went.
    const endedAt = new Date(Date.now() - 60_000).toISOString();
    const pendingEvent = keys.pendingEventIndex(endedAt, org.organizationId, agent.id, runId);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(org.organizationId, agent.id, runId),
        UpdateExpression:
          'SET #status = :completed, ended_at = :at, duration_seconds = :seconds, analysis = :pending, gsi1pk = :pk, gsi1sk = :sk, event_published_at = :at',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':completed': 'completed',
          ':at': endedAt,
          ':seconds': 30,
          ':pending': initialAnalysis(PLAN, true),
          ':pk': pendingEvent.gsi1pk,
          ':sk': pendingEvent.gsi1sk,
        },
      }),
    );
    const ended = Date.parse(endedAt);

    // Within its deadline the outbox leaves it alone (no event is published again: the one webhook
    // below is the failed analysis's). The pass may publish other files' runs (one table).
    await publishPendingEvents(new Date(ended + 5 * 60_000));
    expect((await conversation(org, agent, runId)).body.analysis.status).toBe('pending');
    expect(await listed(new Date(ended + 60_000))).toBe(true);
    // Past it, the analysis is recorded as failed, the webhook goes with it, and the entry is gone.
    await publishPendingEvents(new Date(ended + 31 * 60_000));
    expect((await conversation(org, agent, runId)).body.analysis).toMatchObject({
      status: 'failed',
      error: "The analysis did not finish within 30 minutes of the call's end (its function failed every attempt)",
      attempts: 0,
    });
    const [event] = await eventually(() => (webhooksOf(runId).length ? webhooksOf(runId) : undefined));
    expect(event).toMatchObject({ type: 'call.completed', data: { analysis: { status: 'failed' } } });
    expect(webhooksOf(runId)).toHaveLength(1);
    expect(await listed(new Date(ended + 3_600_000))).toBe(false);
  });

  it('leaves no run in the outbox once analyzed, whichever of the event and the analysis was confirmed first', async () => {
    const org = await newOrganization('Analysis released', 1);
    const agent = await newAgent(org, PLAN);
    const runId = await chat(org, agent, ['What are your opening hours?']);
    await analyzed(org, agent, runId);
    Object.assign(process.env, inject('stackEnv'));
    const runs = await import('../../shared/repositories/runs-read.ts');
    const stillListed = await eventually(async () => {
      const pending = await runs.listRunsWithPendingEvents(new Date(Date.now() + 3_600_000).toISOString(), 100);
      return pending.some((run) => run.id === runId && run.organization_id === org.organizationId) ? undefined : false;
    });
    expect(stillListed).toBe(false);
  });

  it('analyzes a call through the local Twilio and one through the local Telnyx', { timeout: 90_000 }, async () => {
    const org = await newOrganization('Analysis calls', 1);
    await subscribe(org);
    const agent = await newAgent(org, PLAN);
    const call = async (caller = org, by = agent) => {
      const placed = await api.request('POST', `/agents/${by.public_id}/calls`, {
        key: caller.key,
        body: { phone_number: daytimeNumber(2, 4) },
      });
      expect(placed.status).toBe(200);
      return placed.body.workflow_run_id as number;
    };
    const twilioRun = await analyzed(org, agent, await call(), 60_000);
    expect(twilioRun).toMatchObject({ status: 'completed', analysis: CALLEE_ANALYSIS });

    // Another organization, with its own Telnyx account.
    const telnyxOrg = await newOrganization('Analysis Telnyx calls', 1);
    await subscribe(telnyxOrg);
    const telnyxAgent = await newAgent(telnyxOrg, PLAN);
    const callerId = '+442079460575';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(telnyxOrg, account, callerId)).status).toBe(200);
    const telnyxRun = await analyzed(telnyxOrg, telnyxAgent, await call(telnyxOrg, telnyxAgent), 60_000);
    expect(telnyxRun).toMatchObject({ status: 'completed', analysis: CALLEE_ANALYSIS });
    expect((await account.stats()).calls_created_at).toHaveLength(1);
    for (const run of [twilioRun, telnyxRun]) {
      const [event] = await eventually(() => (webhooksOf(run.id).length ? webhooksOf(run.id) : undefined));
      expect(event!.data.analysis).toEqual(run.analysis);
    }
  });

  it(
    'puts each contact’s analysis in the campaign report; an unanswered call has none',
    { timeout: 90_000 },
    async () => {
      const org = await newOrganization('Analysis campaign', 2);
      const agent = await newAgent(org, PLAN);
      const created = await api.request('POST', '/campaigns', {
        key: org.key,
        body: {
          name: 'Analyzed campaign',
          workflow_id: agent.id,
          source_type: 'manual',
          calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
          retry_config: { max_retries: 0 },
          manual_contacts: [
            { phone_number: daytimeNumber(2, 5), first_name: 'Ann', last_name: 'Answer' },
            { phone_number: daytimeNumber(7, 5), first_name: 'Bob', last_name: 'Busy' },
          ],
        },
      });
      expect(created.status).toBe(200);
      const campaignId = created.body.id as number;
      expect((await api.request('POST', `/campaigns/${campaignId}/start`, { key: org.key })).status).toBe(200);
      const rows = await eventually(
        async () => {
          const response = await api.request('GET', `/campaigns/${campaignId}/report.csv`, { key: org.key });
          const parsed = parse(response.text, { columns: true }) as Record<string, string>[];
          return parsed[0]?.analysis_summary && parsed[1]?.status === 'busy' ? parsed : undefined;
        },
        80_000,
        500,
      );
      expect(rows[0]).toMatchObject({
        first_name: 'Ann',
        status: 'completed',
        analysis_summary: expect.stringContaining('the person said: Hello, who is this?'),
        analysis_successful: 'true',
      });
      expect(JSON.parse(rows[0]!.analysis_data!)).toEqual(CALLEE_ANALYSIS.structured_data);
      expect(rows[1]).toMatchObject({
        first_name: 'Bob',
        analysis_summary: '',
        analysis_successful: '',
        analysis_data: '',
      });
      const json = await api.request('GET', `/campaigns/${campaignId}/report`, { key: org.key });
      expect(json.body.items[0]).toMatchObject({
        analysis_successful: true,
        analysis_data: CALLEE_ANALYSIS.structured_data,
      });
      expect(json.body.items[1]).toMatchObject({
        analysis_summary: null,
        analysis_successful: null,
        analysis_data: null,
      });
    },
  );
});
