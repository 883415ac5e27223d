/**
 * Agent tests: what a test case may name (checked against the agent and the version it tests),
 * how a finished conversation is judged against its deterministic expectations, and a run's
 * verdicts. Pure: the service gives it the agent's tools, the version's steps and variables, and
 * the conversation's outcome.
 */
import { isVoiceOnly, type TestMode } from './caller-actions.ts';

/** How the simulated caller behaves (the persona prompt says it in words). */
export const CALLER_BEHAVIOURS = [
  'cooperative',
  'hesitant',
  'rushed',
  'interrupts',
  'off_topic',
  'presses_keys',
] as const;
export type CallerBehaviour = (typeof CALLER_BEHAVIOURS)[number];

export type Expectation =
  | { type: 'tool_called'; tool: string; called: boolean; arguments?: Record<string, unknown> }
  | { type: 'step_reached'; step: string; reached: boolean }
  | { type: 'variable_gathered'; variable: string; value?: unknown }
  | { type: 'disposition'; code: string }
  | { type: 'ended_by_agent'; ended: boolean }
  | { type: 'phrase_said'; phrase: string; said: boolean }
  | { type: 'max_turns'; turns: number }
  | { type: 'judged'; criteria: string };

export const EXPECTATION_TYPES = [
  'tool_called',
  'step_reached',
  'variable_gathered',
  'disposition',
  'ended_by_agent',
  'phrase_said',
  'max_turns',
  'judged',
] as const;

export interface ToolMock {
  tool: string;
  status: number;
  body: unknown;
}

/** What a conversation run by a test carries: the mocked answers its HTTP tools give. */
export interface RunTest {
  test_run_id: number;
  test_id: string;
  tool_mocks: ToolMock[];
  call_real_tools: boolean;
}

/**
 * What a tool answers the model in a test conversation (the JSON text a real call gives:
 * `{status, body}`), or undefined when the test lets it be called for real. A tool without a
 * mock in a test that does not call real tools answers an error: the customer's system is never
 * reached by surprise.
 */
export function mockedToolAnswer(
  test: Pick<RunTest, 'tool_mocks' | 'call_real_tools'>,
  tool: string,
): string | undefined {
  const mock = test.tool_mocks.find((candidate) => candidate.tool === tool);
  if (mock)
    return JSON.stringify({
      status: mock.status,
      body: typeof mock.body === 'string' ? mock.body : JSON.stringify(mock.body ?? null),
    });
  if (test.call_real_tools) return undefined;
  return JSON.stringify({ error: `The tool ${tool} has no mocked answer in this test` });
}

/** What a test case names that must exist. */
export interface TestCaseShape {
  max_turns: number;
  /** Absent: a text case. */
  mode?: TestMode;
  caller: { script?: string[] };
  tool_mocks: ToolMock[];
  expectations: Expectation[];
}

/** What the agent and the tested version offer: a case may name only these. */
export interface TestSubject {
  /** The agent's HTTP tools by name. */
  tools: readonly string[];
  /** The version's flow step ids; null for a flat definition (no steps). */
  steps: readonly string[] | null;
  /** The variables the version's flow gathers; null for a flat definition (whatever the agent saves). */
  variables: readonly string[] | null;
  /** The agent's disposition codes. */
  dispositions: readonly string[];
}

/** A rule broken, at `path` inside the case (the request body). */
export interface TestCaseIssue {
  path: (string | number)[];
  message: string;
}

const quoted = (names: readonly string[]) => (names.length ? names.map((name) => `'${name}'`).join(', ') : 'none');

/** Every reference of `testCase` the subject does not have, and every limit it cannot meet. */
export function lintTestCase(testCase: TestCaseShape, subject: TestSubject): TestCaseIssue[] {
  const issues: TestCaseIssue[] = [];
  const mocked = new Set<string>();
  testCase.tool_mocks.forEach((mock, index) => {
    if (!subject.tools.includes(mock.tool))
      issues.push({
        path: ['tool_mocks', index, 'tool'],
        message: `the agent has no tool named '${mock.tool}' (its tools: ${quoted(subject.tools)})`,
      });
    else if (mocked.has(mock.tool))
      issues.push({ path: ['tool_mocks', index, 'tool'], message: `'${mock.tool}' is mocked twice` });
    mocked.add(mock.tool);
  });
  const script = testCase.caller.script ?? [];
  if (script.length > testCase.max_turns)
    issues.push({
      path: ['caller', 'script'],
      message: `the script has ${script.length} turns but the case ends after max_turns ${testCase.max_turns}`,
    });
  if (testCase.mode !== 'voice')
    script.forEach((line, index) => {
      if (isVoiceOnly(line))
        issues.push({
          path: ['caller', 'script', index],
          message: `'${line.trim()}' is a key press or a silence: only a voice case (mode 'voice') can carry it out`,
        });
    });
  testCase.expectations.forEach((expectation, index) => {
    const at = (field: string) => ['expectations', index, field];
    switch (expectation.type) {
      case 'tool_called':
        if (!subject.tools.includes(expectation.tool))
          issues.push({
            path: at('tool'),
            message: `the agent has no tool named '${expectation.tool}' (its tools: ${quoted(subject.tools)})`,
          });
        break;
      case 'step_reached':
        if (subject.steps === null)
          issues.push({ path: at('step'), message: 'the tested definition is not a flow: it has no steps' });
        else if (!subject.steps.includes(expectation.step))
          issues.push({
            path: at('step'),
            message: `the tested definition has no step '${expectation.step}' (its steps: ${quoted(subject.steps)})`,
          });
        break;
      case 'variable_gathered':
        if (subject.variables !== null && !subject.variables.includes(expectation.variable))
          issues.push({
            path: at('variable'),
            message: `the tested definition gathers no variable '${expectation.variable}' (it gathers: ${quoted(subject.variables)})`,
          });
        break;
      case 'disposition':
        if (!subject.dispositions.includes(expectation.code))
          issues.push({
            path: at('code'),
            message: `the agent has no disposition code '${expectation.code}' (its codes: ${quoted(subject.dispositions)})`,
          });
        break;
      case 'max_turns':
        if (expectation.turns >= testCase.max_turns)
          issues.push({
            path: at('turns'),
            message: `at most ${expectation.turns} turns can never fail: the case ends after max_turns ${testCase.max_turns}`,
          });
        break;
    }
  });
  return issues;
}

/** How a conversation went, as the runner saw it over the chat transport and read from the run. */
export interface ConversationOutcome {
  transcript: { role: 'user' | 'assistant'; text: string }[];
  toolCalls: { name: string; arguments: Record<string, unknown> }[];
  /** The flow steps entered, in order (node ids); empty for a flat definition. */
  path: string[];
  gathered: Record<string, unknown>;
  disposition: string | null;
  endedBy: 'agent' | 'caller' | 'turn_limit';
  /** The simulated caller's turns. */
  callerTurns: number;
}

export interface ExpectationResult {
  index: number;
  type: Expectation['type'];
  passed: boolean;
  reason: string;
}

/** Whether `actual` holds every field of `expected` (objects: a subset; strings: case and spaces ignored). */
export function matchesValue(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) =>
      matchesValue(value, (actual as Record<string, unknown>)[key]),
    );
  }
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((value, i) => matchesValue(value, actual[i]))
    );
  if (typeof expected === 'string' && typeof actual === 'string') return normalize(expected) === normalize(actual);
  if (typeof expected === 'number' && typeof actual === 'string') return String(expected) === actual.trim();
  return expected === actual;
}

const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const show = (value: unknown) => JSON.stringify(value)?.slice(0, 200) ?? 'nothing';

/** The agent line quoting `phrase` (case and spaces ignored), if any. */
const lineSaying = (outcome: ConversationOutcome, phrase: string) =>
  outcome.transcript.find((line) => line.role === 'assistant' && normalize(line.text).includes(normalize(phrase)));

/** The result of one deterministic expectation (a judged one is graded by the model, not here). */
export function checkExpectation(
  expectation: Exclude<Expectation, { type: 'judged' }>,
  index: number,
  outcome: ConversationOutcome,
): ExpectationResult {
  const result = (passed: boolean, reason: string): ExpectationResult => ({
    index,
    type: expectation.type,
    passed,
    reason,
  });
  switch (expectation.type) {
    case 'tool_called': {
      const calls = outcome.toolCalls.filter((call) => call.name === expectation.tool);
      const matching = expectation.arguments
        ? calls.filter((call) => matchesValue(expectation.arguments, call.arguments))
        : calls;
      const wanted = expectation.arguments ? ` with arguments matching ${show(expectation.arguments)}` : '';
      if (expectation.called)
        return matching.length
          ? result(true, `${expectation.tool} was called${wanted}: ${show(matching[0]!.arguments)}`)
          : result(
              false,
              calls.length
                ? `${expectation.tool} was called, but never${wanted}: ${calls.map((call) => show(call.arguments)).join('; ')}`
                : `${expectation.tool} was never called`,
            );
      return matching.length
        ? result(false, `${expectation.tool} was called${wanted}: ${show(matching[0]!.arguments)}`)
        : result(true, `${expectation.tool} was not called${wanted}`);
    }
    case 'step_reached': {
      const reached = outcome.path.includes(expectation.step);
      const path = outcome.path.length ? outcome.path.join(' → ') : 'no steps';
      return result(
        reached === expectation.reached,
        `step '${expectation.step}' was ${reached ? '' : 'not '}reached (path: ${path})`,
      );
    }
    case 'variable_gathered': {
      const has = Object.hasOwn(outcome.gathered, expectation.variable);
      const value = outcome.gathered[expectation.variable];
      if (!has) return result(false, `${expectation.variable} was not gathered`);
      if (expectation.value === undefined) return result(true, `${expectation.variable} was gathered: ${show(value)}`);
      return matchesValue(expectation.value, value)
        ? result(true, `${expectation.variable} is ${show(value)}`)
        : result(false, `${expectation.variable} is ${show(value)}, expected ${show(expectation.value)}`);
    }
    case 'disposition':
      return result(
        outcome.disposition === expectation.code,
        `the disposition is ${outcome.disposition === null ? 'unset' : `'${outcome.disposition}'`}`,
      );
    case 'ended_by_agent': {
      const byAgent = outcome.endedBy === 'agent';
      const how = byAgent
        ? 'the agent ended the conversation'
        : outcome.endedBy === 'turn_limit'
          ? 'the turn limit ended the conversation'
          : 'the caller ended the conversation';
      return result(byAgent === expectation.ended, how);
    }
    case 'phrase_said': {
      const line = lineSaying(outcome, expectation.phrase);
      if (expectation.said)
        return line
          ? result(true, `the agent said: "${line.text.slice(0, 300)}"`)
          : result(false, `the agent never said "${expectation.phrase}"`);
      return line
        ? result(false, `the agent said: "${line.text.slice(0, 300)}"`)
        : result(true, `the agent never said "${expectation.phrase}"`);
    }
    case 'max_turns':
      return result(
        outcome.callerTurns <= expectation.turns,
        `the caller took ${outcome.callerTurns} turn${outcome.callerTurns === 1 ? '' : 's'} (at most ${expectation.turns})`,
      );
  }
}

export type CaseVerdict = 'passed' | 'failed' | 'error';

/** A case's verdict over its attempts: passed only when every attempt passed; an error wins over a fail. */
export function caseVerdict(attempts: readonly { verdict: CaseVerdict }[]): CaseVerdict {
  if (attempts.some((attempt) => attempt.verdict === 'error')) return 'error';
  return attempts.every((attempt) => attempt.verdict === 'passed') ? 'passed' : 'failed';
}

/** An attempt's verdict from its expectations' results. */
export const attemptVerdict = (results: readonly ExpectationResult[]): CaseVerdict =>
  results.every((result) => result.passed) ? 'passed' : 'failed';

/** The channels a test run leaves to live calls: half of the organization's, at least one. */
export const channelsKeptForLiveCalls = (maxConcurrentCalls: number): number =>
  Math.max(1, Math.ceil(maxConcurrentCalls / 2));

/** How many cases of a test run may talk at once: what the run asks, within the channels tests may use, at least one. */
export function testRunParallelism(requested: number, maxConcurrentCalls: number): number {
  return Math.max(1, Math.min(requested, maxConcurrentCalls - channelsKeptForLiveCalls(maxConcurrentCalls)));
}

/**
 * Whether a test case may take a channel now: only while the channels kept for live calls stay
 * free after it, so a test run never makes a live call wait (an organization with a single
 * channel cannot run tests: its one channel is kept for calls).
 */
export const testMayTakeChannel = (activeCalls: number, maxConcurrentCalls: number): boolean =>
  activeCalls + 1 + channelsKeptForLiveCalls(maxConcurrentCalls) <= maxConcurrentCalls;
