import { WebSocket } from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { accountServiceAgent, flowPath, northBankFlow } from '../support/flow-chat.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * A conversation flow on the phone, through the local Twilio and the local Telnyx: the callee
 * directory's flow callers (…342 talks over the disclosure to ask for the card, …343 asks for a
 * loan) take the model's branch both ways; the disclosure, a step not interruptible, is said whole
 * over the caller's words; a listener hears the steps by name; a version published mid-call
 * changes nothing in that call; the post-call analysis reads the path; a caller who says goodbye in
 * a step that is not an end (the account-service template's identity check, which the default
 * callee never passes) has the call ended there by the agent, once.
 */
const api = apiClient();
type Provider = 'twilio' | 'telnyx';

const flow = northBankFlow;
/**
 * The offer step's words on the phone: long enough (about 3 s in the local voice) that the 342
 * caller, who starts 400 ms into them, has a word recognised while they still play. The short
 * disclosure (0.8 s) ends about when that word is recognised: a step's interruptibility could not
 * show on it (whether it was cut was a race with its end).
 */
const DISCLOSURE =
  'This call is recorded. We offer cards and loans without fees for the first year, and an advisor can help you choose which suits you. A card or a loan?';

interface Segment {
  role: string;
  text: string;
  start: string;
  end: string;
}

describe.skipIf(needsLocalStack).each(['twilio', 'telnyx'] as const)(
  'a conversation flow on %s',
  (provider: Provider) => {
    let org: TestOrganization;
    let offset = 0;

    beforeAll(async () => {
      org = await newOrganization(`Flows on ${provider}`, 6);
      if (provider === 'telnyx') {
        const callerId = '+442079460582';
        expect((await useTelnyx(org, await telnyxAccount([callerId]), callerId)).status).toBe(200);
      }
    });

    async function flowAgent({ interruptible = false } = {}) {
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'North Bank',
          workflow_definition: flow(undefined, { interruptible, disclosure: DISCLOSURE }),
          call_disposition_codes: { card: 'Wants a card', loan: 'Wants a loan' },
          workflow_configurations: { silence_timeout_seconds: 10, analysis: { summary_prompt: 'What did they want?' } },
        },
      });
      expect(created.status, created.text).toBe(201);
      return created.body as { id: number; public_id: string; current_definition_id: number };
    }

    /** Calls the flow caller at a number ending in `suffix` (the callee directory). */
    async function placeCall(agent: { public_id: string }, suffix: '342' | '343') {
      offset += 1;
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(1, offset).replace(/\d{3}$/, suffix) },
      });
      expect(placed.status, placed.text).toBe(200);
      return placed.body.workflow_run_id as number;
    }

    const run = (agent: { public_id: string }, runId: number) =>
      api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
    const ended = (agent: { public_id: string }, runId: number) =>
      eventually(
        async () => {
          const { body } = await run(agent, runId);
          return body.status !== 'in_progress' && body.status !== 'initiated' ? body : undefined;
        },
        60_000,
        200,
      );
    const transcript = async (agent: { public_id: string }, runId: number) =>
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}/transcript`, { key: org.key })).body
        .segments as Segment[];

    it.concurrent(
      'the card: a listener hears the steps by name; the disclosure is said whole over the caller; the analysis reads the path',
      async () => {
        const agent = await flowAgent();
        const runId = await placeCall(agent, '342');
        // A listener joins as soon as the call is live: it hears the step the call is in, then each step entered.
        const url = await eventually(async () => {
          const response = await api.request('POST', `/agents/${agent.public_id}/conversations/${runId}/listen`, {
            key: org.key,
          });
          return response.status === 200 ? (response.body.url as string) : undefined;
        }, 30_000);
        const frames: { event: string; [key: string]: unknown }[] = [];
        const ws = new WebSocket(url);
        ws.on('message', (data) => frames.push(JSON.parse(String(data))));
        const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));

        const done = await ended(agent, runId);
        expect(await closed).toBe(1000);
        expect(done.status).toBe('completed');
        expect(done.gathered_context).toEqual({ age: 42, call_disposition: 'card' });
        expect(flowPath(done)).toEqual([
          ['start', 'offer', 'age >= 18 held'],
          ['offer', 'card', 'the model judged "The caller wants the "card""'],
          ['card', null, null],
        ]);
        const steps = frames.filter((frame) => frame.event === 'flow_step').map((frame) => frame.name);
        expect(steps.at(0)).toBe(frames.find((frame) => frame.event === 'flow_step')!.name);
        expect(steps.slice(-2)).toEqual(['Offer', 'Card']);
        expect(['Greeting', 'Offer']).toContain(steps[0]);
        expect(frames.at(-1)).toMatchObject({ event: 'end' });

        const lines = await transcript(agent, runId);
        expect(lines.map(({ role, text }) => `${role}: ${text}`)).toEqual([
          'assistant: Hello, this is North Bank. How old are you?',
          'user: I am 42 years old',
          `assistant: ${DISCLOSURE}`,
          'user: The card, please',
          'assistant: Your card is on its way. Goodbye.',
        ]);
        // The caller spoke while the disclosure played, and did not cut it.
        expect(Date.parse(lines[3]!.start)).toBeLessThan(Date.parse(lines[2]!.end));

        const analyzed = await eventually(async () => {
          const { body } = await run(agent, runId);
          return body.analysis?.status === 'completed' ? body.analysis : undefined;
        }, 30_000);
        expect(analyzed.summary).toMatch(/^A conversation of \d+ lines through the steps Greeting → Offer → Card;/);
      },
    );

    it.concurrent(
      'the loan: the other transition; a version published mid-call changes nothing in that call',
      async () => {
        const agent = await flowAgent();
        const runId = await placeCall(agent, '343');
        await eventually(
          async () => ((await run(agent, runId)).body.status === 'in_progress' ? true : undefined),
          30_000,
        );
        const draft = await api.request('POST', `/agents/${agent.public_id}/definitions`, {
          key: org.key,
          body: { workflow_definition: flow('A new closing. Goodbye.'), note: 'mid-call' },
        });
        expect(draft.status, draft.text).toBe(201);
        const published = await api.request('POST', `/agents/${agent.public_id}/definitions/${draft.body.id}/publish`, {
          key: org.key,
        });
        expect(published.status, published.text).toBe(200);

        const done = await ended(agent, runId);
        expect(done).toMatchObject({ status: 'completed', definition_id: agent.current_definition_id });
        expect(done.gathered_context).toEqual({ age: 30, call_disposition: 'loan' });
        expect(flowPath(done).map(([node]) => node)).toEqual(['start', 'offer', 'loan']);
        expect((await transcript(agent, runId)).map(({ text }) => text).at(-1)).toBe(
          'A loan officer will call you. Goodbye.',
        );
      },
    );

    it.concurrent("an interruptible step is cut by the caller's words over it, and the answer follows", async () => {
      const agent = await flowAgent({ interruptible: true });
      const runId = await placeCall(agent, '342');
      const done = await ended(agent, runId);
      expect(done.gathered_context).toEqual({ age: 42, call_disposition: 'card' });
      const lines = await transcript(agent, runId);
      expect(lines.map(({ role }) => role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
      // What played of the offer: its start, cut where the caller's words stopped it.
      const offer = lines[2]!.text.replace(/…$/, '').trim();
      expect(offer.length).toBeGreaterThan(0);
      expect(offer.length).toBeLessThan(DISCLOSURE.length);
      expect(DISCLOSURE.startsWith(offer)).toBe(true);
      expect(lines[3]!.text).toBe('The card, please');
      expect(Date.parse(lines[3]!.start)).toBeLessThan(Date.parse(lines[2]!.end));
      expect(lines[4]!.text).toBe('Your card is on its way. Goodbye.');
    });

    it.concurrent(
      'a goodbye in a step that is not an end: the agent ends the call there, saying its closing once',
      async () => {
        const agent = await accountServiceAgent(org.key);
        offset += 1;
        // The default callee: three questions, then "Thank you, goodbye."; never a date of birth.
        const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
          key: org.key,
          body: {
            phone_number: daytimeNumber(1, offset).replace(/\d{3}$/, '340'),
            initial_context: { date_of_birth: '1980-05-01' },
          },
        });
        expect(placed.status, placed.text).toBe(200);
        const runId = placed.body.workflow_run_id as number;
        const done = await ended(agent, runId);
        expect(done.status).toBe('completed');
        expect(done.flow).toEqual([
          expect.objectContaining({
            node_id: 'start',
            left_at: null,
            edge: null,
            reason: 'the caller wanted to end the call',
          }),
        ]);
        expect(done.logs.map((log: { message: string }) => log.message)).toContain(
          'Flow: the call ends in "Identity check" (the caller wanted to end the call)',
        );
        const lines = (await transcript(agent, runId)).map(({ role, text }) => `${role}: ${text}`);
        expect(lines.slice(-2)).toEqual([
          'user: Thank you, goodbye.',
          'assistant: Thank you for calling North Bank. Goodbye.',
        ]);
        expect(lines.filter((line) => /goodbye/i.test(line))).toHaveLength(2);
      },
    );

    it.concurrent(
      "a transfer step ends the agent's part: the path ends there, kept until the transferred call ends",
      async () => {
        const destination = provider === 'twilio' ? '+442071230442' : '+442071230452';
        const created = await api.request('POST', '/agents', {
          key: org.key,
          body: {
            name: 'North Bank desk',
            workflow_definition: {
              nodes: [
                {
                  id: 'start',
                  type: 'startCall',
                  name: 'Greeting',
                  greeting: 'Hello, North Bank.',
                  prompt: 'Say "How can I help?"',
                },
                { id: 'human', type: 'transferCall', name: 'Advisor', destination: 'advisor' },
                { id: 'done', type: 'endCall', name: 'Done' },
                { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Be brief.' },
              ],
              edges: [
                { source: 'start', target: 'done', condition: 'The caller says "goodbye"' },
                { source: 'global', target: 'human', condition: 'The caller asks for a "person"' },
              ],
            },
            workflow_configurations: {
              silence_timeout_seconds: 10,
              transfer: { destinations: [{ name: 'advisor', address: destination, description: 'An advisor' }] },
            },
          },
        });
        expect(created.status, created.text).toBe(201);
        offset += 1;
        const placed = await api.request('POST', `/agents/${created.body.public_id}/calls`, {
          key: org.key,
          body: { phone_number: daytimeNumber(1, offset).replace(/\d{3}$/, '341') },
        });
        expect(placed.status, placed.text).toBe(200);
        const done = await ended(created.body, placed.body.workflow_run_id);
        expect(done.gathered_context).toMatchObject({
          call_disposition: 'transferred',
          transfer: { destination: 'advisor', outcome: 'completed' },
        });
        expect(flowPath(done)).toEqual([
          ['start', 'human', 'global transition: the model judged "The caller asks for a "person""'],
          ['human', null, null],
        ]);
      },
    );
  },
);
