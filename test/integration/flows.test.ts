import { beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../shared/schemas/agents.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { chatUntilEnd, flowPath, northBankFlow } from '../support/flow-chat.ts';

/**
 * A conversation flow over chat, end to end through the local stack: a variable test takes one
 * branch or the other (the caller's age), the model takes one of two transitions on a cue (the
 * local model calls `go_to_<node>` when the caller says a word its condition quotes), each end
 * step says its closing words and sets its disposition; the run shows the path and the variables.
 */
const api = apiClient();
let org: TestOrganization;
let agent: Agent;

const FLOW = northBankFlow();

beforeAll(async () => {
  org = await newOrganization('Flows', 10);
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'North Bank',
      workflow_definition: FLOW,
      call_disposition_codes: { card: 'Wants a card', loan: 'Wants a loan' },
    },
  });
  expect(created.status, created.text).toBe(201);
  agent = created.body;
});

const chat = (messages: string[]) => chatUntilEnd(org.key, agent.public_id, messages);
const path = flowPath;

describe('a conversation flow over chat', () => {
  it('an adult who wants the card: the variable test, then the transition the model chose', async () => {
    const { session, run } = await chat(['I am 42 years old', 'The card, please']);
    expect(session.of('text').map((frame) => frame.text)).toEqual([
      'Hello, this is North Bank. How old are you?',
      'This call is recorded.',
      'A card or a loan?',
      'Your card is on its way. Goodbye.',
    ]);
    expect(session.of('flow_step').map((frame) => [frame.node_id, frame.from, frame.reason])).toEqual([
      ['start', null, null],
      ['offer', 'start', 'age >= 18 held'],
      ['card', 'offer', 'the model judged "The caller wants the "card""'],
    ]);
    expect(session.of('tool_call').map((frame) => frame.name)).toEqual(['save_variables', 'go_to_card']);
    expect(run.gathered_context).toEqual({ age: 42, call_disposition: 'card' });
    expect(path(run)).toEqual([
      ['start', 'offer', 'age >= 18 held'],
      ['offer', 'card', 'the model judged "The caller wants the "card""'],
      ['card', null, null],
    ]);
    for (const step of run.flow) expect(Date.parse(step.entered_at)).not.toBeNaN();
    expect(run.flow[0].left_at).toBe(run.flow[1].entered_at);
    expect(run.logs.map((log: { message: string }) => log.message)).toEqual(
      expect.arrayContaining([
        'Flow: the call starts in "Greeting"',
        'Flow: "Greeting" extracted age=42',
        'Flow: "Greeting" → "Offer" (age >= 18 held)',
        'Flow: "Offer" → "Card" (the model judged "The caller wants the "card"")',
        'Disposition set by the flow: card',
      ]),
    );
  });

  it('the other transition: the loan', async () => {
    const { run } = await chat(['I am 30', 'A loan would be great']);
    expect(run.gathered_context).toEqual({ age: 30, call_disposition: 'loan' });
    expect(path(run).map(([node]) => node)).toEqual(['start', 'offer', 'loan']);
  });

  it('the other branch of the variable test: a minor ends at once', async () => {
    const { session, run } = await chat(['I am 12']);
    expect(session.of('text').map((frame) => frame.text)).toEqual([
      'Hello, this is North Bank. How old are you?',
      'Sorry, our offers are for adults. Goodbye.',
    ]);
    expect(run.gathered_context).toMatchObject({ age: 12 });
    expect(path(run)).toEqual([
      ['start', 'minor', 'age < 18 held'],
      ['minor', null, null],
    ]);
    expect(run.flow[0].edge).toEqual({ source: 'start', target: 'minor', label: 'Too young' });
  });

  it('an invalid flow is a 422 pointing into the graph; nothing is written', async () => {
    const broken = structuredClone(FLOW);
    broken.edges[2]!.target = 'nowhere';
    const response = await api.request('PATCH', `/agents/${agent.public_id}`, {
      key: org.key,
      body: { workflow_definition: broken },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'workflow_definition', 'edges', 2, 'target'],
        msg: 'Value error, no node has the id nowhere',
        input: 'nowhere',
        ctx: { error: 'no node has the id nowhere' },
      },
      expect.objectContaining({ loc: ['body', 'workflow_definition', 'nodes', 2] }),
    ]);
    const stored = await api.request('GET', `/agents/${agent.public_id}`, { key: org.key });
    expect(stored.body.workflow_definition).toEqual(FLOW);
  });
});
