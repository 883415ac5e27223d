import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHmac } from 'node:crypto';
import {
  apiClient,
  fundOrganization,
  needsLocalStack,
  newOrganization,
  type TestOrganization,
} from '../support/api.ts';
import { buyFromMarketplace, daytimeNumber } from '../support/phone-numbers.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

/**
 * Text messages during calls end to end, through the local Twilio (Messages API, signed
 * StatusCallbacks) and the local Telnyx (Messaging, signed events): a caller who asks for a text
 * (the local callee directory: …35xx) gets the agent's confirmation, delivered, its status history
 * on the run, in the logs, the transcript and the cost; a landline (…22) cannot take it (the
 * provider's error code); a destination on the Do-not-call list is refused and the model told
 * why; forged status callbacks are refused; deleting the run erases the texts.
 */
const api = apiClient();
type Provider = 'twilio' | 'telnyx';

interface RunSms {
  id: string;
  to: string;
  from: string;
  body: string;
  status: string;
  status_history: { status: string; error_code: string | null }[];
  error_code: string | null;
  error_reason: string | null;
  segments: number;
  cost_usd: number;
  sent_by: string | null;
}

/** A daytime number (calls are allowed now) of a caller who asks for a text; `fate`: its last two digits. */
const texter = (offset: number, fate = '21') => daytimeNumber(1, offset).replace(/\d{4}$/, `35${fate}`);

describe.skipIf(needsLocalStack).each(['twilio', 'telnyx'] as const)('text messages on %s', (provider: Provider) => {
  let org: TestOrganization;
  let offset = 0;

  beforeAll(async () => {
    org = await newOrganization(`Texts ${provider}`, 8);
    if (provider === 'telnyx') {
      const callerId = '+442079460591';
      expect((await useTelnyx(org, await telnyxAccount([callerId]), callerId)).status).toBe(200);
    }
  });

  async function textingAgent(sms: Record<string, unknown>) {
    const created = await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Bookings',
        workflow_definition: { greeting: 'Hi, Smile clinic here.', steps: ['How can I help?'], closing: 'Bye.' },
        workflow_configurations: { silence_timeout_seconds: 10, sms },
      },
    });
    expect(created.status).toBe(201);
    return created.body as { id: number; public_id: string };
  }

  async function call(agent: { public_id: string }, number: string) {
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: number, initial_context: { name: 'Anna' } },
    });
    expect(placed.status).toBe(200);
    return placed.body.workflow_run_id as number;
  }

  const read = (agent: { public_id: string }, runId: number) =>
    api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });

  const ended = (agent: { public_id: string }, runId: number) =>
    eventually(
      async () => {
        const run = await read(agent, runId);
        return run.body.status !== 'in_progress' ? run.body : undefined;
      },
      60_000,
      250,
    );

  const template = {
    name: 'confirmation',
    body: 'Hi {{initial_context.name}}, your visit is booked. Smile clinic.',
    description: 'When the caller asks for the details in writing.',
  };

  it.concurrent('sends the confirmation mid-call; delivered, with its status history on the run', async () => {
    const agent = await textingAgent({ templates: [template], max_per_call: 2 });
    offset += 1;
    const number = texter(offset);
    const runId = await call(agent, number);
    const run = await ended(agent, runId);
    expect(run.status).toBe('completed');
    // The receipt may come after the call: the run is read until it has it.
    const sms = await eventually(async () => {
      const texts = (await read(agent, runId)).body.sms as RunSms[];
      return texts[0]?.status === 'delivered' ? texts : undefined;
    });
    expect(sms).toHaveLength(1);
    expect(sms[0]).toMatchObject({
      to: number,
      body: 'Hi Anna, your visit is booked. Smile clinic.',
      status: 'delivered',
      error_code: null,
      segments: 1,
      cost_usd: 0.0079,
      sent_by: 'agent',
    });
    expect(sms[0]!.status_history.map((change) => change.status)).toEqual(['queued', 'sent', 'delivered']);
    expect(run.cost).toMatchObject({ sms_usd: 0.0079 });
    const logs = (await read(agent, runId)).body.logs.map((log: { message: string }) => log.message);
    expect(logs).toEqual(
      expect.arrayContaining([`Text message ${sms[0]!.id} to ${number} (by the agent): ${sms[0]!.body}`]),
    );
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
      key: org.key,
    });
    // An event of the agent's turn (it may share a segment with the words around it).
    expect(
      transcript.body.segments.some((segment: { role: string; text: string }) =>
        segment.text.includes(`[text message to ${number}: ${sms[0]!.body}]`),
      ),
    ).toBe(true);

    // Deleting the run erases the texts with it (the provider's copy is the provider's).
    const deleted = await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
    expect(deleted.status).toBe(204);
    expect((await read(agent, runId)).status).toBe(404);
  });

  it.concurrent("a landline cannot take the text: undelivered with the provider's error code", async () => {
    const agent = await textingAgent({ templates: [template] });
    offset += 1;
    const runId = await call(agent, texter(offset + 20, '22'));
    await ended(agent, runId);
    const sms = await eventually(async () => {
      const texts = (await read(agent, runId)).body.sms as RunSms[];
      return texts[0]?.status === 'undelivered' ? texts : undefined;
    });
    expect(sms[0]).toMatchObject({
      error_code: provider === 'twilio' ? '30006' : '40001',
      error_reason: 'landline_or_unreachable_carrier',
    });
  });

  it.concurrent('a destination on the Do-not-call list gets no text; the agent is told why', async () => {
    const blocked = `+4860123${String(4000 + offset + (provider === 'twilio' ? 0 : 1)).padStart(4, '0')}`;
    expect(
      (await api.request('POST', '/do-not-call', { key: org.key, body: { phone_number: blocked } })).status,
    ).toBeLessThan(300);
    const agent = await textingAgent({ templates: [template], destination: blocked });
    offset += 1;
    const runId = await call(agent, texter(offset + 40));
    const run = await ended(agent, runId);
    expect(run.sms).toEqual([]);
    expect(run.logs.map((log: { message: string }) => log.message)).toEqual(
      expect.arrayContaining([
        `Text message to ${blocked} not sent: The number is on the Do-not-call list: it gets no text messages.`,
      ]),
    );
  });

  it('refuses a forged status callback (403) and changes nothing', async () => {
    const body =
      provider === 'twilio'
        ? new URLSearchParams({ MessageSid: 'SMforged', MessageStatus: 'delivered' }).toString()
        : JSON.stringify({
            data: { event_type: 'message.finalized', payload: { id: 'x', to: [{ status: 'delivered' }] } },
          });
    const forged = await fetch(
      `${inject('baseUrl')}/telephony/${provider}/messages?run=${org.organizationId}.1.1&sms=sms_x`,
      {
        method: 'POST',
        headers:
          provider === 'twilio'
            ? {
                'Content-Type': 'application/x-www-form-urlencoded',
                'X-Twilio-Signature': createHmac('sha1', 'not-the-token').update('x').digest('base64'),
              }
            : {
                'Content-Type': 'application/json',
                'telnyx-timestamp': String(Math.floor(Date.now() / 1000)),
                'telnyx-signature-ed25519': Buffer.alloc(64).toString('base64'),
              },
        body,
      },
    );
    expect(forged.status).toBe(403);
  });
});

/**
 * The providers call back as soon as they move a text, sometimes before their answer to the send
 * is recorded, sometimes out of order: no report is lost, none moves a text back, and a report of
 * another text (another provider id) moves nothing.
 */
describe.skipIf(needsLocalStack)('text status reports in any order', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await newOrganization('Texts out of order');
  });

  async function liveRun() {
    Object.assign(process.env, inject('stackEnv'));
    const agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Receipts' } })).body as {
      id: number;
      public_id: string;
    };
    const started = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
      key: org.key,
      body: { mode: 'chat' },
    });
    expect(started.status).toBeLessThan(300);
    const ref = { organizationId: org.organizationId, agentId: agent.id, runId: started.body.id as number };
    // As when the browser connects the session.
    const { updateRunWithLog } = await import('../../shared/repositories/runs-lifecycle.ts');
    const live = await updateRunWithLog(ref, {
      UpdateExpression: 'SET #status = :inProgress',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':inProgress': 'in_progress' },
    });
    expect(live).toBe(true);
    return ref;
  }

  const queuedText = (id: string, timestamp: string) => ({
    id,
    direction: 'outbound' as const,
    timestamp,
    from: '+442079460591',
    to: '+447700900123',
    body: 'Your visit is booked.',
    status: 'queued' as const,
    status_history: [{ status: 'queued' as const, timestamp, error_code: null }],
    error_code: null,
    error_reason: null,
    segments: 0,
    cost_usd: 0,
    sent_by: 'api' as const,
    provider_message_id: null,
  });
  const report = (status: 'sent' | 'delivered', timestamp: string, providerMessageId = 'SM-1') => ({
    status,
    timestamp,
    errorCode: null,
    errorReason: null,
    providerMessageId,
  });

  it('keeps a receipt that comes before the send is recorded, and a late one in its place', async () => {
    const texts = await import('../../shared/repositories/run-sms.ts');
    const ref = await liveRun();
    const line = { timestamp: '2026-11-26T10:00:00.000Z', level: 'INFO', message: 'Text message queued' };
    expect(await texts.putRunSms(ref, queuedText('sms-a', '2026-11-26T10:00:00.000Z'), line)).toBe(true);
    // `sent` before the provider's answer is recorded: it records the provider's id itself.
    expect(await texts.applySmsStatus(ref, 'sms-a', report('sent', '2026-11-26T10:00:01.000Z'))).toBe(true);
    await texts.recordSmsAccepted(ref, 'sms-a', { providerMessageId: 'SM-1', segments: 1, costUsd: 0.0079 });
    // A report of another text of the account (another id) moves nothing.
    expect(await texts.applySmsStatus(ref, 'sms-a', report('delivered', '2026-11-26T10:00:02.000Z', 'SM-2'))).toBe(
      false,
    );
    // `delivered` before `sent`: the late `sent` joins the history, once, and the status stays.
    expect(await texts.putRunSms(ref, queuedText('sms-b', '2026-11-26T10:00:03.000Z'), line)).toBe(true);
    await texts.recordSmsAccepted(ref, 'sms-b', { providerMessageId: 'SM-3', segments: 1, costUsd: 0.0079 });
    expect(await texts.applySmsStatus(ref, 'sms-b', report('delivered', '2026-11-26T10:00:05.000Z', 'SM-3'))).toBe(
      true,
    );
    expect(await texts.applySmsStatus(ref, 'sms-b', report('sent', '2026-11-26T10:00:04.000Z', 'SM-3'))).toBe(true);
    expect(await texts.applySmsStatus(ref, 'sms-b', report('sent', '2026-11-26T10:00:04.000Z', 'SM-3'))).toBe(false);
    expect(await texts.applySmsStatus(ref, 'sms-b', report('delivered', '2026-11-26T10:00:05.000Z', 'SM-3'))).toBe(
      false,
    );

    const [first, second] = await texts.listRunSms(ref);
    expect(first).toMatchObject({ id: 'sms-a', status: 'sent', provider_message_id: 'SM-1' });
    expect(first!.status_history.map((change) => change.status)).toEqual(['queued', 'sent']);
    expect(second).toMatchObject({ id: 'sms-b', status: 'delivered' });
    expect(second!.status_history.map((change) => change.status)).toEqual(['queued', 'sent', 'delivered']);
  });
});

/**
 * Numbers' real `sms` capability, and the control API's `send_sms` on a live call, through the
 * local Twilio: a landline bought from the marketplace can take calls, not send texts (refused
 * before the provider is asked, `sender_cannot_text`); a text sent by the control command is on
 * the run (`sent_by: "api"`), in the `call.completed` webhook's body and counted in `GET /usage`.
 */
describe.skipIf(needsLocalStack)('sending numbers, the control command and usage', () => {
  let org: TestOrganization;
  const receivers = webhookReceivers();
  afterAll(() => receivers.closeAll());

  let hooks: Awaited<ReturnType<typeof receivers.start>>;

  beforeAll(async () => {
    org = await newOrganization('Texts by number', 4);
    await fundOrganization(org.organizationId, 10);
    // Subscribed before any call of the organization ends (the fan-out reads its endpoints once per 5 s).
    hooks = await receivers.start();
    expect(
      (await api.request('POST', '/webhooks', { key: org.key, body: { url: hooks.url, events: ['call.completed'] } }))
        .status,
    ).toBe(201);
  });

  async function texting(name: string) {
    const created = await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name,
        workflow_definition: {
          greeting: 'Hi, Smile clinic here.',
          steps: ['How can I help?', 'Anything else?'],
          closing: 'Bye.',
        },
        workflow_configurations: {
          silence_timeout_seconds: 10,
          sms: {
            templates: [{ name: 'confirmation', body: 'Your visit is booked.', description: 'The booking.' }],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    return created.body as { id: number; public_id: string };
  }

  const run = async (agent: { public_id: string }, runId: number) =>
    (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).body;

  it('a landline from the marketplace is voice only, and a text from it is refused as sender_cannot_text', async () => {
    const market = await api.request('GET', '/phone-numbers/marketplace?country_code=GB&number_type=local', {
      key: org.key,
    });
    expect(market.body.items[0]).toMatchObject({ capabilities: ['voice'] });
    const mobiles = await api.request('GET', '/phone-numbers/marketplace?country_code=GB&number_type=mobile', {
      key: org.key,
    });
    expect(mobiles.body.items[0]).toMatchObject({ capabilities: ['voice', 'sms'] });
    const landline = await buyFromMarketplace(org, 'GB', 'local');
    expect(landline.capabilities).toEqual(['voice']);

    const agent = await texting('From a landline');
    const outbound = await api.request('POST', `/agents/${agent.public_id}/outbound-number`, {
      key: org.key,
      body: { phone_number_id: landline.id },
    });
    expect(outbound.status).toBe(200);
    const caller = texter(60);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: caller },
    });
    expect(placed.status).toBe(200);
    const ended = await eventually(
      async () => {
        const current = await run(agent, placed.body.workflow_run_id);
        return current.status !== 'in_progress' ? current : undefined;
      },
      60_000,
      250,
    );
    expect(ended.sms).toEqual([]);
    expect(ended.logs.map((log: { message: string }) => log.message)).toEqual(
      expect.arrayContaining([
        `Text message to ${caller} not sent: The sending number cannot send text messages (it has no sms capability).`,
      ]),
    );
  }, 90_000);

  it("sends a text by the control command on a live call; it is in call.completed's sms", async () => {
    const agent = await texting('Steered');
    // A caller who never asks for a text: only the command sends one.
    const caller = daytimeNumber(1, 3);
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: caller },
    });
    const runId = placed.body.workflow_run_id as number;
    await eventually(
      async () =>
        ((await run(agent, runId)).logs as { message: string }[]).some((log) => log.message === 'Call answered') ||
        undefined,
      30_000,
    );
    const control = (command: Record<string, unknown>) =>
      api.request('POST', `/agents/${agent.public_id}/conversations/${runId}/control`, {
        key: org.key,
        body: command,
      });
    const unknown = await control({ type: 'send_sms', template: 'nothing' });
    expect(unknown.status).toBe(409);
    expect(unknown.body.detail).toContain('No such message template.');
    const sent = await control({ type: 'send_sms', template: 'confirmation' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ workflow_run_id: runId, type: 'send_sms', status: 'applied' });

    await eventually(async () => ((await run(agent, runId)).status !== 'in_progress' ? true : undefined), 60_000, 250);
    const completed = await eventually(
      () =>
        hooks.received
          .map((hook) => JSON.parse(hook.body) as { type: string; data: { workflow_run_id: number; sms: RunSms[] } })
          .find((event) => event.type === 'call.completed' && event.data.workflow_run_id === runId),
      30_000,
      250,
    );
    expect(completed.data.sms).toEqual([
      expect.objectContaining({
        direction: 'outbound',
        to: caller,
        body: 'Your visit is booked.',
        sent_by: 'api',
        segments: 1,
        cost_usd: 0.0079,
      }),
    ]);
    // Usage counts the text the organization's calls sent (the landline's was refused: none).
    const usage = await api.request('GET', '/usage', { key: org.key });
    expect(usage.body.totals).toMatchObject({ sms_messages: 1, sms_segments: 1, sms_usd: 0.0079 });
    const logs = ((await run(agent, runId)).logs as { message: string }[]).map((log) => log.message);
    expect(logs).toEqual(
      expect.arrayContaining([
        'Text message through the control API: template confirmation',
        `Text message ${completed.data.sms[0]!.id} to ${caller} (by the API): Your visit is booked.`,
      ]),
    );
  }, 120_000);
});
