import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
 * The caller's texts to the agent's number, end to end through the local Twilio (its Messaging
 * webhook, form fields signed with X-Twilio-Signature, to an agent's outbound number) and the local
 * Telnyx (`message.received`, Ed25519-signed, to the caller id of the organization's own account):
 * a text during the call reaches the agent as a turn of the caller's (its next words answer it), is
 * on the run (`inbound`, `received`), in its logs and transcript, in `call.completed`'s `sms` and
 * sent as `sms.received`; one after the call is recorded on the run and sent as `sms.received`
 * (`during_call: false`); one from a number the organization had no call with is not kept.
 */
const api = apiClient();
type Provider = 'twilio' | 'telnyx';
const receivers = webhookReceivers();
afterAll(() => receivers.closeAll());

interface RunSms {
  id: string;
  direction: string;
  from: string;
  to: string;
  body: string;
  status: string;
  status_history: { status: string }[];
  cost_usd: number;
  sent_by: string | null;
}
interface Delivered {
  type: string;
  data: { workflow_run_id: number; during_call?: boolean; sms: RunSms | RunSms[] };
}

/** A phone texting `to` at the local carrier: the carrier's answer and the platform webhook's status. */
async function text(provider: Provider, from: string, to: string, body: string) {
  const response =
    provider === 'twilio'
      ? await fetch(`${inject('telephonyApiUrl')}/_simulator/incoming-messages`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ From: from, To: to, Body: body }).toString(),
        })
      : await fetch(`${inject('telnyxOrigin')}/_simulator/incoming-messages`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ from, to, text: body }),
        });
  expect(response.status).toBe(200);
  return (await response.json()) as { webhook_status: number | null };
}

describe.skipIf(needsLocalStack).each(['twilio', 'telnyx'] as const)(
  "the caller's texts on %s",
  (provider: Provider) => {
    let org: TestOrganization;
    let agentNumber: string;
    let agent: { id: number; public_id: string };
    let hooks: Awaited<ReturnType<typeof receivers.start>>;

    beforeAll(async () => {
      org = await newOrganization(`Replies ${provider}`, 4);
      await fundOrganization(org.organizationId, 5);
      const bought = await buyFromMarketplace(org, 'US', 'local');
      agentNumber = bought.phone_number;
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Bookings',
          workflow_definition: {
            greeting: 'Hi, Smile clinic here.',
            steps: ['How can I help?', 'Anything else?', 'Is that all?'],
            closing: 'Bye.',
          },
          workflow_configurations: { silence_timeout_seconds: 10 },
        },
      });
      expect(created.status).toBe(201);
      agent = created.body;
      if (provider === 'twilio') {
        // The agent's own number is the caller id of its calls, on the platform's account.
        const outbound = await api.request('POST', `/agents/${agent.public_id}/outbound-number`, {
          key: org.key,
          body: { phone_number_id: bought.id },
        });
        expect(outbound.status).toBe(200);
      } else {
        // The organization's own Telnyx account owns the number, the caller id of its calls (the run names none).
        expect((await useTelnyx(org, await telnyxAccount([agentNumber]), agentNumber)).status).toBe(200);
      }
      hooks = await receivers.start();
      const subscribed = await api.request('POST', '/webhooks', {
        key: org.key,
        body: { url: hooks.url, events: ['sms.received', 'call.completed'] },
      });
      expect(subscribed.status).toBe(201);
    });

    const read = async (runId: number) =>
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).body;
    const delivered = () => hooks.received.map((hook) => JSON.parse(hook.body) as Delivered);

    it('a text during the call reaches the agent, the run, the transcript and the webhooks; a later one the run', async () => {
      // A callee who says hello, then waits: the call lasts until the agent's silence prompt and
      // goodbye (20 s and more), so the text comes during it however slowly a loaded machine
      // answers. (The default callee's call is over a few seconds after the answer, and a text
      // that came as it ended was recorded after the call.)
      const caller = daytimeNumber(1, provider === 'twilio' ? 0 : 1).replace(/\d{3}$/, '344');
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: caller },
      });
      expect(placed.status).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      // The call's media has started (`answered_at` is written with the task holding it): a text
      // before then is kept on the run only, and the provider's "Call answered" can come first.
      await eventually(async () => (await read(runId)).answered_at ?? undefined, 30_000);
      const email = 'anna.nowak@example.com';
      // The platform answers the carrier's signed webhook 204 (no reply text).
      expect((await text(provider, caller, agentNumber, email)).webhook_status).toBe(204);

      const ended = await eventually(
        async () => {
          const run = await read(runId);
          return run.status !== 'in_progress' ? run : undefined;
        },
        60_000,
        250,
      );
      expect(ended.status).toBe('completed');
      const received = (ended.sms as RunSms[]).filter((sms) => sms.direction === 'inbound');
      expect(received).toEqual([
        expect.objectContaining({
          from: caller,
          to: agentNumber,
          body: email,
          status: 'received',
          cost_usd: 0,
          sent_by: null,
          status_history: [expect.objectContaining({ status: 'received' })],
        }),
      ]);
      const sms = received[0]!;
      const logs = (ended.logs as { message: string }[]).map((log) => log.message);
      expect(logs).toEqual(
        expect.arrayContaining([
          `Text message ${sms.id} from ${caller} during the call: ${email}`,
          `Text message ${sms.id} passed to the agent`,
        ]),
      );
      // The agent took it as the caller's turn: its next words answer it (the local model's rule for a
      // text; the caller may talk over the rest, which the transcript then leaves out).
      const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
        key: org.key,
      });
      const segments = transcript.body.segments as { role: string; text: string }[];
      expect(
        segments.some(
          (segment) => segment.role === 'user' && segment.text.includes(`[text message from ${caller}: ${email}]`),
        ),
      ).toBe(true);
      expect(
        segments.some(
          (segment) => segment.role === 'assistant' && segment.text.startsWith('Thank you, I have your text'),
        ),
      ).toBe(true);

      // The webhooks: `sms.received` during the call, and `call.completed` carrying the text in `sms`.
      const during = await eventually(() =>
        delivered().find((event) => event.type === 'sms.received' && event.data.workflow_run_id === runId),
      );
      expect(during.data).toMatchObject({ during_call: true, sms: { id: sms.id, direction: 'inbound', body: email } });
      const completed = await eventually(() =>
        delivered().find((event) => event.type === 'call.completed' && event.data.workflow_run_id === runId),
      );
      expect(completed.data.sms).toEqual([expect.objectContaining({ id: sms.id, direction: 'inbound', body: email })]);

      // After the call: on the run, as `sms.received` with during_call false.
      expect((await text(provider, caller, agentNumber, 'Also, Friday works.')).webhook_status).toBe(204);
      const later = await eventually(async () => {
        const texts = (await read(runId)).sms as RunSms[];
        return texts.find((each) => each.body === 'Also, Friday works.');
      });
      expect(later).toMatchObject({ direction: 'inbound', status: 'received', from: caller });
      const after = await eventually(() =>
        delivered().find((event) => event.type === 'sms.received' && (event.data.sms as RunSms).id === later.id),
      );
      expect(after.data).toMatchObject({ workflow_run_id: runId, during_call: false });

      // From a number the organization never called: accepted (204) and kept nowhere.
      const stranger = daytimeNumber(3, 2).replace(/\d{3}$/, '404');
      expect((await text(provider, stranger, agentNumber, 'Who is this?')).webhook_status).toBe(204);
      expect(((await read(runId)).sms as RunSms[]).map((each) => each.body)).not.toContain('Who is this?');
    }, 120_000);
  },
);
