import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { flowPath, northBankFlow } from '../support/flow-chat.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };
let flowAgent: { id: number; public_id: string };
let transferAgent: { id: number; public_id: string };
let supervisedAgent: { id: number; public_id: string };
/** The offer step's words: long enough (about 3 s) that the …342 caller, 400 ms into them, cuts them. */
const OFFER =
  'This call is recorded. We offer cards and loans without fees for the first year, and an advisor can help you choose which suits you. A card or a loan?';

beforeAll(async () => {
  org = await newOrganization('Realtime calls', 4);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Realtime reminders',
        workflow_definition: { greeting: 'Hi {{initial_context.name}}.', steps: ['Confirm?'], closing: 'Bye.' },
        workflow_configurations: {
          engine: 'realtime',
          analysis: {
            summary_prompt: 'Summarize in one sentence.',
            structured_data_schema: {
              type: 'object',
              properties: { opening_hours_asked: { type: 'boolean' } },
              required: ['opening_hours_asked'],
            },
            success_criteria: 'The person asked about opening hours.',
          },
        },
        call_disposition_codes: { confirmed: 'Visit confirmed' },
      },
    })
  ).body;
  const created = (name: string, workflowConfigurations: Record<string, unknown>) =>
    api
      .request('POST', '/agents', {
        key: org.key,
        body: {
          name,
          workflow_definition: {
            greeting: 'Hi, Smile clinic here.',
            steps: ['How can I help you today?', 'Anything else?', 'Is that all?'],
            closing: 'Bye.',
          },
          workflow_configurations: { engine: 'realtime', silence_timeout_seconds: 10, ...workflowConfigurations },
        },
      })
      .then((response) => response.body);
  [transferAgent, supervisedAgent] = await Promise.all([
    created('Realtime front line', {
      transfer: {
        destinations: [{ name: 'front_desk', description: 'A person at the front desk.', address: '+442071230492' }],
      },
    }),
    created('Realtime supervised', {}),
  ]);
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
      // Both sides in the model's words: its transcript of the callee's turns and of its own speech.
      expect(
        transcript.body.segments.map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`),
      ).toEqual([
        'assistant: Hi Anna.',
        'user: Hello, who is this?',
        'assistant: Confirm?',
        'user: What are your opening hours?',
        'assistant: Bye.',
      ]);
      expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
      expect(run.cost.total_usd).toBeCloseTo(
        run.cost.telephony_usd + run.cost.platform_usd + run.cost.speech_to_speech_usd,
        4,
      );
      // The recording in S3: both sides mixed, the length of the call (8 kHz, 16-bit: 16 bytes a ms).
      const wav = Buffer.from(await (await fetch(run.recording_download_url)).arrayBuffer());
      expect(wav.subarray(0, 4).toString()).toBe('RIFF');
      expect(wav.length - 44).toBeGreaterThan(
        16 * (Date.parse(transcript.body.segments.at(-1).end) - Date.parse(transcript.body.segments[0].start)),
      );
      // The post-call analysis reads that transcript, as for the cascade.
      const analyzed = await eventually(async () => {
        const current = (
          await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })
        ).body;
        return current.analysis?.status !== 'pending' ? current : undefined;
      }, 40_000);
      expect(analyzed.analysis).toMatchObject({
        status: 'completed',
        summary: expect.stringContaining('the person said: Hello, who is this? / What are your opening hours?'),
        structured_data: { opening_hours_asked: true },
        success_evaluation: { successful: true },
      });
    },
  );
});

// Apart from the calls above (one pair at once, then the other): four calls at once on a loaded
// machine slow the Realtime fake past the line's pace.
describe.skipIf(needsLocalStack)('a realtime call handed on or steered (the local Twilio, the Realtime fake)', () => {
  it.concurrent(
    "transfers to a person (transfer_call): the run ends with the transferred call, the model's part priced",
    async () => {
      // The callee directory's …341 asks for a person; the destination (…2) answers.
      const placed = await api.request('POST', `/agents/${transferAgent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(1, 8).replace(/\d{3}$/, '341') },
      });
      expect(placed.status, placed.text).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      const run = await ended(transferAgent.public_id, runId);
      expect(run.status).toBe('completed');
      expect(run.gathered_context).toMatchObject({
        call_disposition: 'transferred',
        transfer: { destination: 'front_desk', mode: 'cold', outcome: 'completed' },
      });
      const messages = run.logs.map((log: { message: string }) => log.message) as string[];
      expect(messages).toContain('Transfer to front_desk asked for by the agent: Can I talk to a person, please?');
      const transcript = await api.request(
        'GET',
        `/agents/${transferAgent.public_id}/conversations/${runId}/transcript`,
        {
          key: org.key,
        },
      );
      expect(
        transcript.body.segments.slice(-2).map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`),
      ).toEqual(['user: Can I talk to a person, please?', 'assistant: Please hold while I transfer your call.']);
      // The model's tokens of the agent's part: the run ends with the transfer's outcome, later.
      expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
      expect(run.cost.total_usd).toBeCloseTo(
        run.cost.telephony_usd + run.cost.platform_usd + run.cost.speech_to_speech_usd,
        4,
      );
    },
  );

  it.concurrent(
    'is heard live on both sides and steered through POST …/control: add_message, end with a goodbye',
    async () => {
      const placed = await api.request('POST', `/agents/${supervisedAgent.public_id}/calls`, {
        key: org.key,
        // The callee directory's …341 asks for a person, then waits: the call stays up (this agent
        // transfers no one) until the controls end it.
        body: { phone_number: `${daytimeNumber(2, 9).slice(0, -3)}341` },
      });
      expect(placed.status, placed.text).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      const path = (what: string) => `/agents/${supervisedAgent.public_id}/conversations/${runId}/${what}`;
      const control = (command: Record<string, unknown>) =>
        api.request('POST', path('control'), { key: org.key, body: command });
      const url = await eventually(
        async () => {
          const response = await api.request('POST', path('listen'), { key: org.key });
          return response.status === 200 ? (response.body.url as string) : undefined;
        },
        20_000,
        50,
      );
      const frames: { event: string; [field: string]: any }[] = [];
      const listener = new WebSocket(url);
      listener.on('message', (data) => frames.push(JSON.parse(String(data))));
      const closed = new Promise<number>((resolve) => listener.on('close', (code) => resolve(code)));
      const of = (event: string) => frames.filter((frame) => frame.event === event);
      // Once the listener hears the call (the callee's line is audio from the start). Its transcripts
      // of both sides are tested on the media clock (test/unit/realtime-features.test.ts): here the
      // callee may have spoken its lines before the listener joined.
      await eventually(() => (of('media').some((frame) => frame.track === 'inbound') ? true : undefined));
      expect((await control({ type: 'add_message', content: 'The person is a returning patient.' })).status).toBe(200);
      // The goodbye, in the model's voice, is said whole though the callee may be talking: the call is ending.
      expect((await control({ type: 'end', say: 'Goodbye from the clinic.' })).status).toBe(200);
      expect(await closed).toBe(1000);
      expect(new Set(of('media').map((frame) => frame.track))).toEqual(new Set(['inbound', 'outbound']));
      expect(of('transcript').at(-1)).toMatchObject({ role: 'assistant', text: 'Goodbye from the clinic.' });
      expect(of('control').map((frame) => frame.type)).toEqual(['add_message', 'end']);
      const run = await ended(supervisedAgent.public_id, runId);
      expect(run.status).toBe('completed');
      expect(run.logs.map((log: { message: string }) => log.message)).toEqual(
        expect.arrayContaining([
          'Message added through the control API: The person is a returning patient.',
          'Ended through the control API',
        ]),
      );
      expect(run.cost.speech_to_speech_usd).toBeGreaterThan(0);
    },
  );
});
