import { describe, expect, it } from 'vitest';
import {
  caseResults,
  callerRequest,
  definitionParts,
  modelTokensUsd,
  summarize,
  type TestAttempt,
  type TestRunRecord,
} from '../../shared/domain/agent-test-runs.ts';
import {
  caseVerdict,
  checkExpectation,
  lintTestCase,
  matchesValue,
  testMayTakeChannel,
  testRunParallelism,
  type ConversationOutcome,
  type Expectation,
  type TestCaseShape,
  type TestSubject,
} from '../../shared/domain/agent-tests.ts';

const subject: TestSubject = {
  tools: ['find_slots', 'book_slot'],
  steps: ['start', 'offer', 'card'],
  variables: ['age'],
  dispositions: ['card', 'loan'],
};
const flat: TestSubject = { ...subject, steps: null, variables: null };

const shape = (overrides: Partial<TestCaseShape> = {}): TestCaseShape => ({
  max_turns: 6,
  caller: {},
  tool_mocks: [],
  expectations: [],
  ...overrides,
});

describe('lintTestCase', () => {
  it.each<[string, TestCaseShape, TestSubject, { path: (string | number)[]; message: RegExp }[]]>([
    ['a sound case', shape({ expectations: [{ type: 'tool_called', tool: 'find_slots', called: true }] }), subject, []],
    [
      'a tool the agent lacks',
      shape({ expectations: [{ type: 'tool_called', tool: 'pay', called: true }] }),
      subject,
      [{ path: ['expectations', 0, 'tool'], message: /no tool named 'pay' \(its tools: 'find_slots', 'book_slot'\)/ }],
    ],
    [
      'a mock of a tool the agent lacks, and one mocked twice',
      shape({
        tool_mocks: [
          { tool: 'pay', status: 200, body: {} },
          { tool: 'book_slot', status: 200, body: {} },
          { tool: 'book_slot', status: 500, body: {} },
        ],
      }),
      subject,
      [
        { path: ['tool_mocks', 0, 'tool'], message: /no tool named 'pay'/ },
        { path: ['tool_mocks', 2, 'tool'], message: /mocked twice/ },
      ],
    ],
    [
      'a step the flow lacks',
      shape({ expectations: [{ type: 'step_reached', step: 'loan', reached: true }] }),
      subject,
      [{ path: ['expectations', 0, 'step'], message: /no step 'loan'/ }],
    ],
    [
      'a step of a flat definition',
      shape({ expectations: [{ type: 'step_reached', step: 'start', reached: true }] }),
      flat,
      [{ path: ['expectations', 0, 'step'], message: /not a flow/ }],
    ],
    [
      'a variable the flow does not gather',
      shape({ expectations: [{ type: 'variable_gathered', variable: 'income' }] }),
      subject,
      [{ path: ['expectations', 0, 'variable'], message: /no variable 'income' \(it gathers: 'age'\)/ }],
    ],
    [
      'any variable of a flat definition',
      shape({ expectations: [{ type: 'variable_gathered', variable: 'x' }] }),
      flat,
      [],
    ],
    [
      'an unknown disposition code',
      shape({ expectations: [{ type: 'disposition', code: 'mortgage' }] }),
      subject,
      [{ path: ['expectations', 0, 'code'], message: /no disposition code 'mortgage'/ }],
    ],
    [
      'at most N turns at or past the turn limit',
      shape({ max_turns: 4, expectations: [{ type: 'max_turns', turns: 4 }] }),
      subject,
      [{ path: ['expectations', 0, 'turns'], message: /can never fail/ }],
    ],
    [
      'a script longer than the turn limit',
      shape({ max_turns: 1, caller: { script: ['Hi', 'Bye'] } }),
      subject,
      [{ path: ['caller', 'script'], message: /2 turns but the case ends after max_turns 1/ }],
    ],
  ])('%s', (_name, testCase, against, expected) => {
    const issues = lintTestCase(testCase, against);
    expect(issues.map((issue) => issue.path)).toEqual(expected.map((item) => item.path));
    issues.forEach((issue, i) => expect(issue.message).toMatch(expected[i]!.message));
  });
});

const outcome: ConversationOutcome = {
  transcript: [
    { role: 'assistant', text: 'Hello, this call is recorded.' },
    { role: 'user', text: 'I am 42' },
    { role: 'assistant', text: 'Your card is on its way.  Goodbye.' },
  ],
  toolCalls: [{ name: 'find_slots', arguments: { day: 'Friday', count: 2 } }],
  path: ['start', 'offer', 'card'],
  gathered: { age: 42, name: 'Anna ' },
  disposition: 'card',
  endedBy: 'agent',
  callerTurns: 3,
};

describe('checkExpectation', () => {
  it.each<[Exclude<Expectation, { type: 'judged' }>, boolean, RegExp]>([
    [{ type: 'tool_called', tool: 'find_slots', called: true }, true, /was called/],
    [{ type: 'tool_called', tool: 'find_slots', called: true, arguments: { day: 'friday' } }, true, /matching/],
    [{ type: 'tool_called', tool: 'find_slots', called: true, arguments: { day: 'Monday' } }, false, /never with/],
    [{ type: 'tool_called', tool: 'book_slot', called: true }, false, /never called/],
    [{ type: 'tool_called', tool: 'book_slot', called: false }, true, /not called/],
    [{ type: 'tool_called', tool: 'find_slots', called: false }, false, /was called/],
    [{ type: 'step_reached', step: 'card', reached: true }, true, /start → offer → card/],
    [{ type: 'step_reached', step: 'loan', reached: true }, false, /not reached/],
    [{ type: 'step_reached', step: 'loan', reached: false }, true, /not reached/],
    [{ type: 'variable_gathered', variable: 'age', value: 42 }, true, /age is 42/],
    [{ type: 'variable_gathered', variable: 'age', value: '42' }, false, /expected "42"/],
    [{ type: 'variable_gathered', variable: 'name', value: 'anna' }, true, /name is/],
    [{ type: 'variable_gathered', variable: 'income' }, false, /not gathered/],
    [{ type: 'disposition', code: 'card' }, true, /'card'/],
    [{ type: 'disposition', code: 'loan' }, false, /'card'/],
    [{ type: 'ended_by_agent', ended: true }, true, /the agent ended/],
    [{ type: 'ended_by_agent', ended: false }, false, /the agent ended/],
    [{ type: 'phrase_said', phrase: 'THIS CALL   is recorded', said: true }, true, /Hello, this call is recorded/],
    [{ type: 'phrase_said', phrase: 'card is on its way. goodbye', said: false }, false, /the agent said/],
    [{ type: 'phrase_said', phrase: 'loan', said: true }, false, /never said "loan"/],
    [{ type: 'max_turns', turns: 3 }, true, /3 turns \(at most 3\)/],
    [{ type: 'max_turns', turns: 2 }, false, /3 turns \(at most 2\)/],
  ])('%j → %s', (expectation, passed, reason) => {
    const result = checkExpectation(expectation, 4, outcome);
    expect(result).toMatchObject({ index: 4, type: expectation.type, passed });
    expect(result.reason).toMatch(reason);
  });

  it('says who ended the conversation when it was not the agent', () => {
    expect(
      checkExpectation({ type: 'ended_by_agent', ended: true }, 0, { ...outcome, endedBy: 'turn_limit' }),
    ).toMatchObject({
      passed: false,
      reason: 'the turn limit ended the conversation',
    });
  });
});

describe('matchesValue', () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1 }, { a: 1, b: 2 }, true],
    [{ a: { b: 'X ' } }, { a: { b: 'x', c: 1 } }, true],
    [{ a: 1 }, { a: 2 }, false],
    [[1, 2], [1, 2], true],
    [[1, 2], [1, 2, 3], false],
    [3, '3', true],
    [true, 'true', false],
    [null, null, true],
    [{ a: 1 }, null, false],
  ])('%j in %j → %s', (expected, actual, result) => expect(matchesValue(expected, actual)).toBe(result));
});

describe('channels and parallelism', () => {
  it.each<[number, number, boolean]>([
    [0, 10, true],
    [4, 10, true],
    [5, 10, false],
    [0, 2, true],
    [1, 2, false],
    [0, 1, false],
    [0, 3, true],
    [1, 3, false],
    // An odd count keeps the larger half: 5 channels, 3 kept, so 2 for tests.
    [1, 5, true],
    [2, 5, false],
    // 4 channels (test/integration/agent-test-channels.test.ts): 2 cases talk, every further one waits
    // while 2 stay free for live calls, however many are busy.
    [1, 4, true],
    [2, 4, false],
    [3, 4, false],
    [4, 4, false],
    // More busy than the organization has (its count lowered meanwhile), or none at all: no test connects.
    [11, 10, false],
    [0, 0, false],
    [49, 100, true],
    [50, 100, false],
  ])('%i active of %i: a test may connect → %s', (active, max, allowed) =>
    expect(testMayTakeChannel(active, max)).toBe(allowed),
  );
  it.each<[number, number, number]>([
    [10, 10, 5],
    [3, 10, 3],
    [8, 2, 1],
    [4, 1, 1],
  ])('asked %i with %i channels → %i at once', (requested, max, parallelism) =>
    expect(testRunParallelism(requested, max)).toBe(parallelism),
  );
});

const attempt = (caseIndex: number, verdict: TestAttempt['verdict'], cost = 0.001): TestAttempt => ({
  test_run_id: 1,
  case_index: caseIndex,
  test_id: `test_${caseIndex}`,
  attempt: 1,
  verdict,
  turn_latencies_ms: [],
  expectations: [],
  transcript: [],
  tool_calls: [],
  path: [],
  conversation_id: null,
  latency_ms: null,
  cost_usd: cost,
  model_tokens: { input_tokens: 0, output_tokens: 0 },
  error: null,
  started_at: '',
  ended_at: '',
});

describe("a test's model tokens", () => {
  it.each<[string, number, number, 'organization' | 'platform', number]>([
    ['none', 0, 0, 'platform', 0],
    ['a million in, at the input price', 1_000_000, 0, 'platform', 0.15],
    ['a judged case of 2,000 in and 100 out', 2000, 100, 'platform', 0.00036],
    ["the organization's own key: its provider bills it", 2000, 100, 'organization', 0],
  ])('%s → $%d', (_case, input, output, owner, usd) =>
    expect(modelTokensUsd({ input_tokens: input, output_tokens: output }, owner)).toBe(usd),
  );
});

describe('verdicts', () => {
  it.each<[TestAttempt['verdict'][], string]>([
    [['passed', 'passed'], 'passed'],
    [['passed', 'failed'], 'failed'],
    [['failed', 'error'], 'error'],
  ])('%j → %s', (verdicts, verdict) => expect(caseVerdict(verdicts.map((v) => ({ verdict: v })))).toBe(verdict));

  it('counts each case once: pending until its attempts are in, cancelled when the run stopped first', () => {
    const run: TestRunRecord = {
      id: 1,
      organization_id: 1,
      workflow_id: 2,
      definition_id: 3,
      status: 'running',
      cases: [0, 1, 2].map((index) => ({ index, test_id: `test_${index}`, name: `case ${index}` })),
      repeat: 2,
      parallelism: 2,
      created_at: '',
      completed_at: null,
    };
    const attempts = [attempt(0, 'passed'), { ...attempt(0, 'passed'), attempt: 2 }, attempt(1, 'failed')];
    const running = caseResults(run, attempts);
    expect(running.map((result) => [result.verdict, result.passed_attempts])).toEqual([
      ['passed', 2],
      ['pending', 0],
      ['pending', 0],
    ]);
    const cancelled = summarize(caseResults({ ...run, status: 'cancelled' }, attempts));
    expect(cancelled).toEqual({ cases: 3, passed: 1, failed: 0, errors: 0, pending: 0, cancelled: 2, cost_usd: 0.003 });
  });
});

describe('definitionParts', () => {
  it('takes the steps (not the global node) and the variables (extracted and fetched) of a flow', () => {
    expect(
      definitionParts({
        nodes: [
          {
            id: 'start',
            type: 'startCall',
            name: 'S',
            prompt: 'p',
            extract: [{ name: 'age', type: 'number' }],
            pre_call_fetch: { url: 'https://x.example', variables: ['tier'] },
          },
          { id: 'end', type: 'endCall', name: 'E', extract: [{ name: 'score', type: 'number' }] },
          { id: 'g', type: 'globalNode', name: 'G', prompt: 'p' },
        ],
        edges: [],
      }),
    ).toEqual({ steps: ['start', 'end'], variables: ['age', 'tier', 'score'] });
    expect(definitionParts({ prompt: 'flat' })).toEqual({ steps: null, variables: null });
  });
});

describe('callerRequest', () => {
  it('gives the model the persona, goal and behaviour, and the conversation as the caller sees it', () => {
    const request = callerRequest(
      { persona: 'Anna, 67', goal: 'Move the visit', language: 'pl', behaviour: ['rushed'] },
      [
        { role: 'assistant', text: 'Hello' },
        { role: 'user', text: 'Hi' },
      ],
    );
    expect(request.system).toContain('Persona: Anna, 67');
    expect(request.system).toContain('Goal: Move the visit');
    expect(request.system).toContain('in a hurry');
    expect(request.prompt).toBe('Conversation so far:\nAgent: Hello\nCaller: Hi');
  });
});
