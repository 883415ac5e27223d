import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string; current_definition_id: number };

/** A flow: the caller's age, then a card or a loan (docs/flows.md's example, without the transfer). */
const FLOW = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      greeting: 'Hello, this is North Bank. This call is recorded. How old are you?',
      prompt: "Find out the caller's age.",
      extract: [{ name: 'age', type: 'number', hint: "The caller's age in years" }],
    },
    { id: 'offer', type: 'agentNode', name: 'Offer', prompt: 'Say "Would you like a card or a loan?"' },
    { id: 'card', type: 'endCall', name: 'Card', closing: 'Your card is on its way. Goodbye.', disposition: 'card' },
    {
      id: 'loan',
      type: 'endCall',
      name: 'Loan',
      closing: 'A loan officer will call you. Goodbye.',
      disposition: 'loan',
    },
    { id: 'minor', type: 'endCall', name: 'Minor', closing: 'Sorry, our offers are for adults. Goodbye.' },
  ],
  edges: [
    { source: 'start', target: 'offer', expression: 'age >= 18' },
    { source: 'start', target: 'minor', expression: 'age < 18' },
    { source: 'offer', target: 'card', condition: 'The caller wants the "card"' },
    { source: 'offer', target: 'loan', condition: 'The caller wants the "loan"' },
  ],
};

const tests = (suffix = '') => `/agents/${agent.public_id}/tests${suffix}`;

const cardCase = {
  name: 'Adult wants a card',
  caller: { persona: 'Jan, 42', goal: 'Get a card', script: ['I am 42', 'The card, please'] },
  max_turns: 4,
  tags: ['smoke'],
  expectations: [
    { type: 'step_reached', step: 'card' },
    { type: 'variable_gathered', variable: 'age', value: 42 },
    { type: 'disposition', code: 'card' },
    { type: 'ended_by_agent' },
    { type: 'phrase_said', phrase: 'this call is recorded' },
  ],
};

beforeAll(async () => {
  org = await newOrganization('Agent tests');
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'North Bank',
        call_disposition_codes: { card: 'Wants a card', loan: 'Wants a loan' },
        workflow_definition: FLOW,
      },
    })
  ).body;
  expect(agent.public_id).toMatch(/^agent_/);
});

describe('test cases', () => {
  it('are created with their defaults, listed by page and tag, changed and deleted', async () => {
    const created = await api.request('POST', tests(), { key: org.key, body: cardCase });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^test_[A-Za-z0-9]{16}$/),
      workflow_id: agent.id,
      caller: { language: 'en', behaviour: ['cooperative'] },
      initial_context: {},
      tool_mocks: [],
      call_real_tools: false,
      timeout_seconds: 120,
      expectations: expect.arrayContaining([{ type: 'ended_by_agent', ended: true }]),
    });
    const other = await api.request('POST', tests(), {
      key: org.key,
      body: { ...cardCase, name: 'Loan', tags: ['loans'], expectations: [{ type: 'disposition', code: 'loan' }] },
    });
    expect(other.status).toBe(201);

    const page = await api.request('GET', `${tests()}?limit=1`, { key: org.key });
    expect(page.body).toMatchObject({ page: 1, limit: 1, total_count: 2, total_pages: 2 });
    expect(page.body.items).toHaveLength(1);
    const tagged = await api.request('GET', `${tests()}?tag=loans`, { key: org.key });
    expect(tagged.body.items.map((item: { name: string }) => item.name)).toEqual(['Loan']);

    const changed = await api.request('PATCH', tests(`/${other.body.id}`), {
      key: org.key,
      body: { max_turns: 6, tags: ['loans', 'smoke'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ max_turns: 6, tags: ['loans', 'smoke'], name: 'Loan' });
    expect((await api.request('GET', tests(`/${other.body.id}`), { key: org.key })).body.max_turns).toBe(6);

    expect((await api.request('DELETE', tests(`/${other.body.id}`), { key: org.key })).status).toBe(204);
    expect((await api.request('GET', tests(`/${other.body.id}`), { key: org.key })).status).toBe(404);
    expect((await api.request('DELETE', tests(`/${other.body.id}`), { key: org.key })).status).toBe(404);
    const stranger = await newOrganization('Agent tests, another organization');
    expect((await api.request('GET', tests(`/${created.body.id}`), { key: stranger.key })).status).toBe(404);
  });

  it('refuse, at the field, names the agent does not have and limits the case cannot meet', async () => {
    const refused = await api.request('POST', tests(), {
      key: org.key,
      body: {
        ...cardCase,
        max_turns: 3,
        tool_mocks: [{ tool: 'find_slots', body: {} }],
        expectations: [
          { type: 'tool_called', tool: 'find_slots' },
          { type: 'step_reached', step: 'mortgage' },
          { type: 'variable_gathered', variable: 'income' },
          { type: 'max_turns', turns: 3 },
        ],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'tool_mocks', 0, 'tool'],
        msg: "Value error, the agent has no tool named 'find_slots' (its tools: none)",
        input: 'find_slots',
        ctx: { error: "the agent has no tool named 'find_slots' (its tools: none)" },
      },
      expect.objectContaining({ loc: ['body', 'expectations', 0, 'tool'], input: 'find_slots' }),
      expect.objectContaining({
        loc: ['body', 'expectations', 1, 'step'],
        msg: "Value error, the tested definition has no step 'mortgage' (its steps: 'start', 'offer', 'card', 'loan', 'minor')",
      }),
      expect.objectContaining({ loc: ['body', 'expectations', 2, 'variable'], input: 'income' }),
      expect.objectContaining({ loc: ['body', 'expectations', 3, 'turns'], input: 3 }),
    ]);
    const shape = await api.request('POST', tests(), {
      key: org.key,
      body: { ...cardCase, expectations: [{ type: 'step_reached' }], max_turns: 0 },
    });
    expect(shape.status).toBe(422);
    expect(shape.body.detail.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type])).toEqual([
      [['body', 'max_turns'], 'greater_than_equal'],
      [['body', 'expectations', 0, 'step'], 'missing'],
    ]);
    expect((await api.request('GET', tests(), { key: org.key })).body.total_count).toBe(1);
  });
});
