import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { flowPath, northBankFlow } from '../support/flow-chat.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };
let flowAgent: { id: number; public_id: string };
/** The offer step's words: long enough (about 3 s) that the …342 caller, 400 ms into them, cuts them. */
const OFFER =
  'This call is recorded. We offer cards and loans without fees for the first year, and an advisor can help you choose which suits you. A card or a loan?';

beforeAll(async () => {
  org = await newOrganization('Realtime calls', 2);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Realtime reminders',
        workflow_definition: { greeting: 'Hi {{initial_context.name}}.', steps: ['Confirm?'], closing: 'Bye.' },
        workflow_configurations: { engine: 'realtime' },
        call_disposition_codes: { confirmed: 'Visit confirmed' },
      },
    })
  ).body;
  flowAgent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'North Bank',
        workflow_definition: northBankFlow(undefined, { interruptible: true, disclosure: OFFER }),
        workflow_configurations: { engine: 'realtime', silence_timeout_seconds: 10 },
        call_disposition_codes: { card: 'Wants a card', loan: 'Wants a loan' },
      },
    })
  ).body;
});

const ended = (agentId: string, runId: number) =>
  eventually(async () => {
    const current = await api.request('GET', `/agents/${agentId}/conversations/${runId}`, { key: org.key });
    return current.body.status !== 'in_progress' && current.body.status !== 'initiated' ? current.body : undefined;
  }, 60_000);

describe.skipIf(needsLocalStack)('a phone call of the realtime engine (the local Twilio, the Realtime fake)', () => {
  it.concurrent(
    "a flow's steps on the model, a tool called, and a caller who cuts in: the model keeps what played",
    async () => {
      // The callee directory's …342: says its age, then talks over the offer to ask for the card.
      const placed = await api.request('POST', `/agents/${flowAgent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(1, 7).replace(/\d{3}$/, '342') },
      });
      expect(placed.status, placed.text).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      const run = await ended(flowAgent.public_id, runId);
      expect(run.status).toBe('completed');
      // The model saved the age (save_variables), the test moved the call on, the model chose the card (go_to_card).
      expect(run.gathered_context).toEqual({ age: 42, call_disposition: 'card' });
      expect(flowPath(run)).toEqual([
        ['start', 'offer', 'age >= 18 held'],
        ['offer', 'card', 'the model judged "The caller wants the "card""'],
        ['card', null, null],
      ]);
      const messages = run.logs.map((log: { message: string }) => log.message) as string[];
      expect(messages).toContain("Prepared while the call rang: the realtime session's connection");
      expect(messages).toContain('Flow: "Greeting" extracted age=42');
      const cut = messages.find((message) => message.startsWith('The caller cut in: the model keeps the '));
      expect(cut).toBeDefined();
      const transcript = await api.request('GET', `/agents/${flowAgent.public_id}/conversations/${runId}/transcript`, {
        key: org.key,
      });
      const lines = transcript.body.segments as { role: string; text: string; start: string; end: string }[];
      expect(lines.map(({ role }) => role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
      // What played of the offer: its start, back to a whole word; the caller spoke over it.
      const offer = lines[2]!.text.replace(/…$/, '').trim();
      expect(offer.length).toBeGreaterThan(0);
      expect(offer.length).toBeLessThan(OFFER.length);
      expect(OFFER.startsWith(offer)).toBe(true);
      expect(lines[3]!.text).toBe('The card, please');
      expect(Date.parse(lines[3]!.start)).toBeLessThan(Date.parse(lines[2]!.end));
      expect(lines[4]!.text).toBe('Your card is on its way. Goodbye.');
      // The tokens of the session the flow steered, priced on the run and in the usage report.
      expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
      expect(run.cost.total_usd).toBeCloseTo(
        run.cost.telephony_usd + run.cost.platform_usd + run.cost.speech_to_speech_usd,
        4,
      );
      const usage = await api.request('GET', '/usage', { key: org.key });
      const agentUsage = (usage.body.agents as { workflow_id: number; cost_usd: number }[]).find(
        ({ workflow_id }) => workflow_id === flowAgent.id,
      );
      expect(agentUsage?.cost_usd).toBe(run.cost.total_usd);
    },
  );

  it.concurrent(
    'greets in the model voice, hears the callee, ends the call, and prices the model on the run',
    async () => {
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(3), initial_context: { name: 'Anna' } },
      });
      expect(placed.status).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      const run = await ended(agent.public_id, runId);
      expect(run.status).toBe('completed');
      expect(run.gathered_context.call_disposition).toBe('confirmed');
      const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, {
        key: org.key,
      });
      expect(transcript.body.segments[0]).toMatchObject({ role: 'assistant', text: 'Hi Anna.' });
      expect(transcript.body.segments.some((segment: { role: string }) => segment.role === 'user')).toBe(true);
      expect(transcript.body.segments.at(-1)).toMatchObject({ role: 'assistant', text: 'Bye.' });
      expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
      expect(run.cost.total_usd).toBeCloseTo(
        run.cost.telephony_usd + run.cost.platform_usd + run.cost.speech_to_speech_usd,
        4,
      );
    },
  );
});
