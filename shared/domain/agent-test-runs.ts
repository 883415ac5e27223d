/**
 * A test run: the cases it runs, each attempt's result, its summary, and what the simulated
 * caller is told. Pure.
 */
import type { CaseVerdict, ExpectationResult } from './agent-tests.ts';
import { caseVerdict } from './agent-tests.ts';
import { VOICE_ACTIONS_HELP, type TestMode } from './caller-actions.ts';
import { extractedBy, isFlowDefinition, type FlowDefinition } from './flows.ts';

export const TEST_RUN_STATUSES = ['running', 'completed', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** Attempts of one test run at most (cases × repeat): the Map state's input stays small. */
export const MAX_TEST_RUN_ATTEMPTS = 500;

export interface TestRunCase {
  index: number;
  test_id: string;
  name: string;
}

export interface TestRunRecord {
  id: number;
  organization_id: number;
  workflow_id: number;
  definition_id: number;
  status: TestRunStatus;
  cases: TestRunCase[];
  repeat: number;
  parallelism: number;
  created_at: string;
  completed_at: string | null;
}

export interface TestAttempt {
  test_run_id: number;
  case_index: number;
  test_id: string;
  attempt: number;
  verdict: CaseVerdict;
  expectations: ExpectationResult[];
  transcript: { role: 'user' | 'assistant'; text: string }[];
  tool_calls: { name: string; arguments: Record<string, unknown>; result: string | null }[];
  path: string[];
  /** The conversation run the case talked in (its logs and recording are there). */
  conversation_id: number | null;
  /** Median time from the caller's message to the agent's first words, in milliseconds. */
  latency_ms: number | null;
  /** Per caller turn: ms until the agent's first words (voice: audio), null for a turn not answered. */
  turn_latencies_ms: (number | null)[];
  /** The conversation's cost and the simulated caller's and judge's model tokens (modelTokensUsd). */
  cost_usd: number;
  /** The tokens the simulated caller and the judge used (the agent's own are in the conversation's cost). */
  model_tokens: ModelTokens;
  /** Why the attempt could not be judged (time exceeded, no channel, a failure of the platform). */
  error: string | null;
  started_at: string;
  ended_at: string;
}

export interface ModelTokens {
  input_tokens: number;
  output_tokens: number;
}

/**
 * The platform model's list price per million tokens (USD; gpt-4o-mini, the default `LLM_MODEL`):
 * what a test's simulated caller and judge add to its cost.
 */
export const MODEL_USD_PER_MILLION_TOKENS = { input: 0.15, output: 0.6 } as const;

/**
 * What a test's model tokens cost on the platform's model; nothing when the organization uses its
 * own model key (its provider bills it), the tokens are still reported.
 */
export function modelTokensUsd(tokens: ModelTokens, owner: 'organization' | 'platform'): number {
  if (owner === 'organization') return 0;
  const usd =
    (tokens.input_tokens * MODEL_USD_PER_MILLION_TOKENS.input +
      tokens.output_tokens * MODEL_USD_PER_MILLION_TOKENS.output) /
    1e6;
  return Math.round(usd * 1e6) / 1e6;
}

/** One attempt to run: what the state machine's Map state iterates over. */
export interface AttemptRef {
  organization_id: number;
  workflow_id: number;
  test_run_id: number;
  case_index: number;
  test_id: string;
  attempt: number;
}

/** Every attempt of a run, case by case. */
export const attemptRefs = (run: TestRunRecord): AttemptRef[] =>
  run.cases.flatMap((item) =>
    Array.from({ length: run.repeat }, (_, i) => ({
      organization_id: run.organization_id,
      workflow_id: run.workflow_id,
      test_run_id: run.id,
      case_index: item.index,
      test_id: item.test_id,
      attempt: i + 1,
    })),
  );

export type CaseStatus = CaseVerdict | 'pending' | 'cancelled';

export interface CaseResult {
  index: number;
  test_id: string;
  name: string;
  verdict: CaseStatus;
  passed_attempts: number;
  attempts: TestAttempt[];
}

/**
 * Each case's verdict from its recorded attempts: pending while some are still to come (or, for
 * a cancelled run, `cancelled` when some never ran; the recorded ones stay).
 */
export function caseResults(run: TestRunRecord, attempts: readonly TestAttempt[]): CaseResult[] {
  return run.cases.map((item) => {
    const own = attempts.filter((attempt) => attempt.case_index === item.index);
    const complete = own.length >= run.repeat;
    const verdict: CaseStatus = complete ? caseVerdict(own) : run.status === 'cancelled' ? 'cancelled' : 'pending';
    return {
      ...item,
      verdict,
      passed_attempts: own.filter((attempt) => attempt.verdict === 'passed').length,
      attempts: own,
    };
  });
}

export interface TestRunSummary {
  cases: number;
  passed: number;
  failed: number;
  errors: number;
  pending: number;
  cancelled: number;
  cost_usd: number;
}

export function summarize(results: readonly CaseResult[]): TestRunSummary {
  const count = (verdict: CaseStatus) => results.filter((result) => result.verdict === verdict).length;
  const cost = results.flatMap((result) => result.attempts).reduce((sum, attempt) => sum + attempt.cost_usd, 0);
  return {
    cases: results.length,
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    pending: count('pending'),
    cancelled: count('cancelled'),
    cost_usd: Math.round(cost * 1e6) / 1e6,
  };
}

/** What a test case may name in a version: its flow's steps and variables (none for a flat definition). */
export function definitionParts(definition: Record<string, unknown>): {
  steps: string[] | null;
  variables: string[] | null;
} {
  if (!isFlowDefinition(definition)) return { steps: null, variables: null };
  const flow = definition as unknown as FlowDefinition;
  const nodes = Array.isArray(flow.nodes) ? flow.nodes : [];
  return {
    steps: nodes.filter((node) => node.type !== 'globalNode').map((node) => node.id),
    variables: nodes.flatMap((node) => [
      ...extractedBy(node).map((variable) => variable.name),
      ...(node.type === 'startCall' ? (node.pre_call_fetch?.variables ?? []) : []),
    ]),
  };
}

/** The `response_format` name of the simulated caller's turn (the local fake plays it by name). */
export const SIMULATED_CALLER = 'simulated_caller';

/** What the simulated caller answers each turn: its words, or that it hangs up. */
export interface CallerTurn {
  say: string;
  hang_up: boolean;
}

const BEHAVIOUR_WORDS: Record<string, string> = {
  cooperative: 'You answer what you are asked.',
  hesitant: 'You hesitate, hedge and sometimes ask for things to be repeated.',
  rushed: 'You are in a hurry: short answers, no small talk.',
  interrupts: 'You interrupt the agent and change your mind once.',
  off_topic: 'You drift to an unrelated subject once before coming back to your goal.',
  presses_keys: 'When the agent offers a menu, you answer with the key to press ("press 1").',
};

/**
 * The simulated caller's next turn as a model request: the persona, goal and behaviour as the
 * system prompt, the conversation so far as the prompt. A scripted turn is not asked of the model.
 */
export function callerRequest(
  caller: { persona: string; goal: string; language: string; behaviour: readonly string[] },
  transcript: readonly { role: 'user' | 'assistant'; text: string }[],
  mode: TestMode = 'text',
): { system: string; prompt: string } {
  const system = [
    'You are playing a caller talking to an AI agent, to test it. Stay in character; never say you are testing.',
    `Persona: ${caller.persona}`,
    `Goal: ${caller.goal}`,
    `Language: ${caller.language}`,
    `Behaviour: ${caller.behaviour.map((item) => BEHAVIOUR_WORDS[item] ?? item).join(' ')}`,
    'Answer with JSON: say (your next words, one or two sentences) and hang_up (true once your goal is reached or cannot be, after saying goodbye).',
    ...(mode === 'voice' ? [VOICE_ACTIONS_HELP] : []),
  ].join('\n');
  const prompt = [
    'Conversation so far:',
    ...transcript.map((line) => `${line.role === 'assistant' ? 'Agent' : 'Caller'}: ${line.text}`),
  ].join('\n');
  return { system, prompt };
}

/** The median of the latencies measured (a turn without one left out), or null without any. */
export function median(values: readonly (number | null)[]): number | null {
  const sorted = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}
