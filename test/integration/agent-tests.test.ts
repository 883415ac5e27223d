import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { modelTokensUsd } from '../../shared/domain/agent-test-runs.ts';
import { talkOverChat } from '../../shared/services/test-conversation.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string; current_definition_id: number };
const receivers = webhookReceivers();
/** The organization's webhook endpoint, subscribed before any of its conversations (fan-out caches endpoints). */
let hooks: Awaited<ReturnType<typeof receivers.start>>;
afterAll(receivers.closeAll);

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
const runs = (suffix = '') => `/agents/${agent.public_id}/test-runs${suffix}`;

/** A test run once it has ended (the cases talk over chat on the local stack). */
async function finished(path: string) {
  let run: any;
  await vi.waitFor(
    async () => {
      run = (await api.request('GET', path, { key: org.key })).body;
      expect(run.status).not.toBe('running');
    },
    { timeout: 90_000, interval: 250 },
  );
  return run;
}

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
  org = await newOrganization('Agent tests', 10);
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
  hooks = await receivers.start();
  const subscribed = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: hooks.url, events: ['call.started', 'call.completed', 'call.failed', 'test_run.completed'] },
  });
  expect(subscribed.status, subscribed.text).toBe(201);
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

describe('test runs', () => {
  it(
    'talk each case over chat with the version, judge it, and keep each verdict with its reasons',
    { timeout: 120_000 },
    async () => {
      const passing = (await api.request('GET', `${tests()}?tag=smoke`, { key: org.key })).body.items[0];
      expect(passing.name).toBe('Adult wants a card');
      const failing = await api.request('POST', tests(), {
        key: org.key,
        body: {
          name: 'Minor asks for a loan',
          caller: { persona: 'Ola, 16. Then: The loan, please', goal: 'I am 16' },
          max_turns: 3,
          tags: ['loans'],
          expectations: [
            { type: 'disposition', code: 'loan' },
            { type: 'step_reached', step: 'offer', reached: false },
            { type: 'judged', criteria: 'The agent says our "offers" are for adults' },
            { type: 'judged', criteria: 'The agent mentions mortgages' },
          ],
        },
      });
      expect(failing.status, failing.text).toBe(201);

      const started = await api.request('POST', runs(), { key: org.key, body: { parallelism: 2 } });
      expect(started.status, started.text).toBe(201);
      expect(started.body).toMatchObject({
        status: 'running',
        definition_id: agent.current_definition_id,
        repeat: 1,
        parallelism: 2,
        summary: { cases: 2, pending: 2 },
      });
      const run = await finished(runs(`/${started.body.id}`));
      expect(run.status).toBe('completed');
      expect(run.cases.map((item: any) => item.attempts[0].error)).toEqual([null, null]);
      expect(run.summary).toMatchObject({ cases: 2, passed: 1, failed: 1, errors: 0, pending: 0 });
      const byName = Object.fromEntries(run.cases.map((item: any) => [item.name, item]));
      const card = byName['Adult wants a card'];
      expect(card).toMatchObject({ verdict: 'passed', passed_attempts: 1 });
      const [attempt] = card.attempts;
      expect(attempt).toMatchObject({
        verdict: 'passed',
        path: ['start', 'offer', 'card'],
        error: null,
        conversation_id: expect.any(Number),
        latency_ms: expect.any(Number),
      });
      expect(attempt.transcript.slice(0, 2)).toEqual([
        { role: 'assistant', text: 'Hello, this is North Bank. This call is recorded. How old are you?' },
        { role: 'user', text: 'I am 42' },
      ]);
      expect(attempt.tool_calls.map((call: { name: string }) => call.name)).toEqual(
        expect.arrayContaining(['save_variables', 'go_to_card']),
      );
      expect(attempt.expectations.every((result: { passed: boolean }) => result.passed)).toBe(true);
      expect(attempt.expectations[1]).toMatchObject({ type: 'variable_gathered', reason: 'age is 42' });
      // A scripted caller and no judged criteria: no model tokens, the conversation's cost only.
      expect(attempt.model_tokens).toEqual({ input_tokens: 0, output_tokens: 0 });
      const cardConversation = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/${attempt.conversation_id}`,
        { key: org.key },
      );
      expect(attempt.cost_usd).toBe(cardConversation.body.cost.total_usd);

      const minor = byName['Minor asks for a loan'];
      expect(minor.verdict).toBe('failed');
      expect(minor.attempts[0].expectations).toEqual([
        { index: 0, type: 'disposition', passed: false, reason: "the disposition is 'completed'" },
        { index: 1, type: 'step_reached', passed: true, reason: "step 'offer' was not reached (path: start → minor)" },
        { index: 2, type: 'judged', passed: true, reason: 'The conversation mentions "offers".' },
        expect.objectContaining({
          index: 3,
          type: 'judged',
          passed: false,
          reason: expect.stringContaining('mortgages'),
        }),
      ]);
      // The model played the caller and judged two criteria: its tokens are in the attempt's cost.
      const minorAttempt = minor.attempts[0];
      expect(minorAttempt.model_tokens.input_tokens).toBeGreaterThan(100);
      expect(minorAttempt.model_tokens.output_tokens).toBeGreaterThan(10);
      const minorConversation = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/${minorAttempt.conversation_id}`,
        { key: org.key },
      );
      const tokensUsd = modelTokensUsd(minorAttempt.model_tokens, 'platform');
      expect(tokensUsd).toBeGreaterThan(0);
      expect(minorAttempt.cost_usd).toBeCloseTo(minorConversation.body.cost.total_usd + tokensUsd, 6);
      expect(run.summary.cost_usd).toBeCloseTo(attempt.cost_usd + minorAttempt.cost_usd, 6);
      // The case's conversation is a chat run of the agent with the tested version.
      const conversation = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/${attempt.conversation_id}`,
        {
          key: org.key,
        },
      );
      expect(conversation.body).toMatchObject({ mode: 'chat', definition_id: agent.current_definition_id });

      // "Make a test from this call": the caller's turns as the script, the outcome as expectations.
      const draft = await api.request(
        'GET',
        `/agents/${agent.public_id}/conversations/${attempt.conversation_id}/test-draft`,
        { key: org.key },
      );
      expect(draft.status, draft.text).toBe(200);
      expect(draft.body).toMatchObject({
        caller: { script: ['I am 42', 'The card, please'], goal: 'I am 42' },
        max_turns: 3,
        tags: ['from-call'],
        expectations: [
          { type: 'disposition', code: 'card' },
          { type: 'variable_gathered', variable: 'age', value: 42 },
          { type: 'step_reached', step: 'card', reached: true },
        ],
      });
      const saved = await api.request('POST', tests(), { key: org.key, body: { ...draft.body, tags: ['drafted'] } });
      expect(saved.status, saved.text).toBe(201);
      expect((await api.request('DELETE', tests(`/${saved.body.id}`), { key: org.key })).status).toBe(204);

      const listed = await api.request('GET', runs(), { key: org.key });
      expect(listed.body).toMatchObject({ total_count: 1, items: [{ id: run.id, status: 'completed' }] });
      expect(listed.body.items[0].cases).toBeUndefined();
    },
  );

  it(
    "keep test conversations out of the agent's conversations and the customer's webhooks; billed with their run",
    { timeout: 120_000 },
    async () => {
      const started = await api.request('POST', runs(), { key: org.key, body: { tag: 'smoke' } });
      expect(started.status, started.text).toBe(201);
      const run = await finished(runs(`/${started.body.id}`));
      const testConversation: number = run.cases[0].attempts[0].conversation_id;
      expect(testConversation).toEqual(expect.any(Number));
      // An ordinary chat after it: its webhooks arriving show the test's would have arrived by now.
      const chat = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
        key: org.key,
        body: { mode: 'chat', initial_context: {} },
      });
      expect(chat.status, chat.text).toBe(200);
      await talkOverChat(chat.body.session, {
        maxTurns: 1,
        timeoutSeconds: 30,
        caller: async () => ({ say: 'Goodbye.', hang_up: true }),
      });
      const events = () => hooks.received.map((hook) => JSON.parse(hook.body) as { type: string; data: any });
      await eventually(
        () =>
          events().some((event) => event.type === 'call.completed' && event.data.workflow_run_id === chat.body.id) &&
          events().some((event) => event.type === 'test_run.completed' && event.data.test_run_id === run.id)
            ? true
            : undefined,
        60_000,
      );
      const aboutTests = events().filter(
        (event) => event.type.startsWith('call.') && event.data.workflow_run_name?.startsWith('Test: '),
      );
      expect(aboutTests).toEqual([]);
      expect(
        events().some((event) => event.type === 'call.started' && event.data.workflow_run_id === chat.body.id),
      ).toBe(true);

      const listed = await api.request('GET', `/agents/${agent.public_id}/conversations?limit=100`, { key: org.key });
      const ids = listed.body.items.map((item: { id: number }) => item.id);
      expect(ids).toContain(chat.body.id);
      expect(ids).not.toContain(testConversation);
      expect(listed.body.items.every((item: { name: string }) => !item.name.startsWith('Test: '))).toBe(true);
      // Still readable by its id, from the test run's result.
      const read = await api.request('GET', `/agents/${agent.public_id}/conversations/${testConversation}`, {
        key: org.key,
      });
      expect(read.body).toMatchObject({ id: testConversation, status: 'completed', analysis: null });

      const billed = await api.request('GET', '/organizations/usage/runs?limit=100', { key: org.key });
      expect(billed.body.items.find((item: { run_id: number }) => item.run_id === testConversation)).toMatchObject({
        test_run_id: run.id,
      });
      expect(
        billed.body.items.find((item: { run_id: number }) => item.run_id === chat.body.id).test_run_id,
      ).toBeUndefined();
    },
  );

  it("answer HTTP tools from the mocks, never from the customer's system", { timeout: 90_000 }, async () => {
    const flat = (
      await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Clinic',
          workflow_definition: { prompt: 'You are North Clinic.', greeting: 'North Clinic, hello.' },
        },
      })
    ).body;
    const tool = await api.request('POST', `/agents/${flat.public_id}/tools`, {
      key: org.key,
      body: {
        name: 'find_slots',
        description: 'Free slots on a day',
        method: 'GET',
        url: 'http://127.0.0.1:9/slots',
        parameters: { properties: { day: { type: 'string' } }, required: ['day'] },
      },
    });
    expect(tool.status, tool.text).toBe(201);
    const testCase = await api.request('POST', `/agents/${flat.public_id}/tests`, {
      key: org.key,
      body: {
        name: 'Finds a slot',
        caller: { persona: 'Anna', goal: 'Find slots on Friday, please' },
        tool_mocks: [{ tool: 'find_slots', body: { slots: ['Friday 14:00'] } }],
        max_turns: 2,
        expectations: [
          { type: 'tool_called', tool: 'find_slots', arguments: { day: 'Find slots on Friday, please' } },
          { type: 'phrase_said', phrase: 'Friday 14:00' },
          { type: 'ended_by_agent' },
        ],
      },
    });
    expect(testCase.status, testCase.text).toBe(201);
    const started = await api.request('POST', `/agents/${flat.public_id}/test-runs`, { key: org.key, body: {} });
    expect(started.status, started.text).toBe(201);
    const run = await finished(`/agents/${flat.public_id}/test-runs/${started.body.id}`);
    const [attempt] = run.cases[0].attempts;
    expect(attempt.tool_calls[0]).toMatchObject({
      name: 'find_slots',
      result: JSON.stringify({ status: 200, body: JSON.stringify({ slots: ['Friday 14:00'] }) }),
    });
    expect(attempt.expectations.map((result: { passed: boolean }) => result.passed)).toEqual([true, true, true]);
    expect(run.cases[0].verdict).toBe('passed');
  });

  it('refuse an archived agent (409), a version it lacks (404), cases it lacks (422)', async () => {
    expect((await api.request('POST', runs(), { key: org.key, body: { definition_id: 999_999 } })).status).toBe(404);
    const unknown = await api.request('POST', runs(), { key: org.key, body: { test_ids: ['test_AAAAAAAAAAAAAAAA'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'test_ids', 0], type: 'value_error' });
    const none = await api.request('POST', runs(), { key: org.key, body: { tag: 'nothing' } });
    expect(none.body.detail[0]).toMatchObject({ loc: ['body', 'tag'] });
    // A draft without the card step: the smoke case names it, so it cannot test that draft.
    const draft = await api.request('POST', `/agents/${agent.public_id}/definitions`, {
      key: org.key,
      body: {
        workflow_definition: {
          nodes: FLOW.nodes.filter((node) => node.id !== 'card'),
          edges: FLOW.edges.filter((edge) => edge.target !== 'card'),
        },
      },
    });
    expect(draft.status, draft.text).toBe(201);
    const lacking = await api.request('POST', runs(), {
      key: org.key,
      body: { tag: 'smoke', definition_id: draft.body.id },
    });
    expect(lacking.status).toBe(422);
    expect(lacking.body.detail[0]).toMatchObject({
      loc: ['body', 'definition_id'],
      msg: expect.stringContaining("test case 'Adult wants a card'"),
    });
    const archived = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Old' } })).body;
    await api.request('POST', `/agents/${archived.public_id}/archive`, { key: org.key });
    expect(
      (await api.request('POST', `/agents/${archived.public_id}/test-runs`, { key: org.key, body: {} })).status,
    ).toBe(409);
  });

  it(
    'gate publishing when the agent requires passing tests: 409 naming the failing cases',
    { timeout: 150_000 },
    async () => {
      const gated = await api.request('PATCH', `/agents/${agent.public_id}`, {
        key: org.key,
        body: { workflow_configurations: { publish_requires_passing_tests: true } },
      });
      expect(gated.status, gated.text).toBe(200);
      // PATCH publishes a changed definition at once: a version no test has run, refused.
      const changedFlow = {
        ...FLOW,
        nodes: FLOW.nodes.map((node) => (node.id === 'offer' ? { ...node, prompt: 'Say "Card or loan?"' } : node)),
      };
      const patched = await api.request('PATCH', `/agents/${agent.public_id}`, {
        key: org.key,
        body: { workflow_definition: changedFlow },
      });
      expect(patched.status, patched.text).toBe(409);
      expect(patched.body.detail).toMatch(/requires passing tests: .* would publish a version no test has run/);
      const unchanged = (await api.request('GET', `/agents/${agent.public_id}`, { key: org.key })).body;
      expect(unchanged.current_definition_id).toBe(gated.body.current_definition_id);
      expect(unchanged.workflow_definition).toEqual(gated.body.workflow_definition);
      // Its other fields, and the same definition again, change without publishing anything.
      const renamed = await api.request('PATCH', `/agents/${agent.public_id}`, {
        key: org.key,
        body: { name: 'North Bank (tested)', workflow_definition: gated.body.workflow_definition },
      });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.current_definition_id).toBe(gated.body.current_definition_id);
      const draft = (
        await api.request('POST', `/agents/${agent.public_id}/definitions`, {
          key: org.key,
          body: { workflow_definition: FLOW, note: 'Same flow, to publish' },
        })
      ).body;
      const publish = () =>
        api.request('POST', `/agents/${agent.public_id}/definitions/${draft.id}/publish`, { key: org.key });
      const untested = await publish();
      expect(untested.status).toBe(409);
      expect(untested.body.detail).toMatch(/has no completed test run/);

      await finished(
        runs(`/${(await api.request('POST', runs(), { key: org.key, body: { definition_id: draft.id } })).body.id}`),
      );
      const failing = await publish();
      expect(failing.status).toBe(409);
      expect(failing.body.detail).toMatch(/failing cases: 'Minor asks for a loan' \(test_\w+, failed\)/);

      const smoke = await api.request('POST', runs(), {
        key: org.key,
        body: { definition_id: draft.id, tag: 'smoke' },
      });
      await finished(runs(`/${smoke.body.id}`));
      const published = await publish();
      expect(published.status, published.text).toBe(200);
      expect(published.body.status).toBe('current');
    },
  );

  it('cancel midway keeps the verdicts recorded and cancels the rest', { timeout: 90_000 }, async () => {
    const started = await api.request('POST', runs(), {
      key: org.key,
      body: { tag: 'smoke', repeat: 10, parallelism: 1 },
    });
    expect(started.status, started.text).toBe(201);
    await vi.waitFor(
      async () => {
        const run = (await api.request('GET', runs(`/${started.body.id}`), { key: org.key })).body;
        expect(run.cases[0].attempts.length).toBeGreaterThan(0);
      },
      { timeout: 60_000, interval: 200 },
    );
    const cancelled = await api.request('POST', runs(`/${started.body.id}/cancel`), { key: org.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.cases[0].verdict).toBe('cancelled');
    const kept = cancelled.body.cases[0].attempts.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(10);
    expect((await api.request('POST', runs(`/${started.body.id}/cancel`), { key: org.key })).status).toBe(409);
    const later = (await api.request('GET', runs(`/${started.body.id}`), { key: org.key })).body;
    expect(later.status).toBe('cancelled');
    expect(later.cases[0].attempts.length).toBeGreaterThanOrEqual(kept);
    expect(later.cases[0].attempts.length).toBeLessThan(10);
  });
});
