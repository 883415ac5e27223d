import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { analysisAnswerSchema, analysisRequest, CALL_ANALYSIS } from '../domain/call-analysis.ts';
import {
  callerRequest,
  median,
  SIMULATED_CALLER,
  type AttemptRef,
  modelTokensUsd,
  type CallerTurn,
  type ModelTokens,
  type TestAttempt,
} from '../domain/agent-test-runs.ts';
import {
  attemptVerdict,
  checkExpectation,
  testMayTakeChannel,
  type ConversationOutcome,
  type ExpectationResult,
} from '../domain/agent-tests.ts';
import type { LanguageModel, TokenMeter } from '../ai/language-model.ts';
import { logger } from '../observability/logger.ts';
import * as repository from '../repositories/agent-tests.ts';
import { getOrganization } from '../repositories/organizations.ts';
import { getRun } from '../repositories/runs-read.ts';
import type { TestCase } from '../schemas/agent-tests.ts';
import { createConversation } from './conversations.ts';
import { modelFor } from './language-models.ts';
import { talkOverChat, type ChatTalk } from './test-conversation.ts';
import { sessionConnection, talkOverVoice, type CallerLine } from './test-voice-conversation.ts';
import { phoneLine } from './test-phone-call.ts';
import { optionalSetting } from '../config/settings.ts';

const CallerAnswer = z.object({ say: z.string().max(4000), hang_up: z.boolean() });

/** The simulated caller: the case's script first, then the model playing the persona. */
export function simulatedCaller(testCase: TestCase, model: LanguageModel, meter?: TokenMeter) {
  const script = testCase.caller.script;
  return async (transcript: ChatTalk['transcript'], turn: number): Promise<CallerTurn> => {
    if (script) {
      const line = script[turn - 1];
      return line !== undefined ? { say: line, hang_up: false } : { say: 'Thank you, goodbye.', hang_up: true };
    }
    return model.extract({
      name: SIMULATED_CALLER,
      ...callerRequest(testCase.caller, transcript, testCase.mode),
      schema: CallerAnswer,
      meter,
    });
  };
}

/**
 * A judged criterion graded as the post-call analysis grades its success criteria (the same
 * request and answer schema), against the transcript the test saw.
 */
export async function judge(
  model: LanguageModel,
  criteria: string,
  outcome: ConversationOutcome,
  index: number,
  meter?: TokenMeter,
): Promise<ExpectationResult> {
  const plan = { success_criteria: criteria };
  const answer = await model.extract({
    name: CALL_ANALYSIS,
    ...analysisRequest(plan, outcome.transcript, outcome.disposition),
    schema: analysisAnswerSchema(plan),
    strict: false,
    meter,
  });
  const evaluation = (answer as { success_evaluation?: { successful: boolean; reason: string } }).success_evaluation;
  return {
    index,
    type: 'judged',
    passed: evaluation?.successful === true,
    reason: evaluation?.reason ?? 'The model gave no evaluation',
  };
}

/** Every expectation of the case against the outcome, the judged ones by the model. */
export async function evaluate(
  testCase: TestCase,
  outcome: ConversationOutcome,
  model: LanguageModel,
  meter?: TokenMeter,
) {
  return Promise.all(
    testCase.expectations.map((expectation, index) =>
      expectation.type === 'judged'
        ? judge(model, expectation.criteria, outcome, index, meter)
        : checkExpectation(expectation, index, outcome),
    ),
  );
}

/** Adds up the tokens of an attempt's simulated caller and judge. */
function tokenCounter(): TokenMeter & { tokens: ModelTokens } {
  const tokens: ModelTokens = { input_tokens: 0, output_tokens: 0 };
  return {
    tokens,
    add(input, output) {
      tokens.input_tokens += input;
      tokens.output_tokens += output;
    },
  };
}

/** Waits until a test may take a channel (half are kept for live calls); false past `deadline`. */
async function channelFree(orgId: number, deadline: number, wait: (ms: number) => Promise<unknown>): Promise<boolean> {
  for (;;) {
    const organization = await getOrganization(orgId);
    if (organization && testMayTakeChannel(organization.active_calls ?? 0, organization.maxConcurrentCalls))
      return true;
    if (Date.now() >= deadline) return false;
    await wait(500);
  }
}

/** The run once it has ended (the media service completes it after the session closes). */
async function endedRun(ref: AttemptRef, runId: number, wait: (ms: number) => Promise<unknown>) {
  for (let tries = 0; tries < 100; tries += 1) {
    const run = await getRun(ref.organization_id, ref.workflow_id, runId);
    if (run?.ended_at) return run;
    await wait(200);
  }
  return getRun(ref.organization_id, ref.workflow_id, runId);
}

/**
 * One attempt of one case (a task of the agent-test-run state machine): a chat conversation with
 * the tested version against the simulated caller, judged and recorded. A cancelled run starts no
 * new attempt. Past its time the attempt is recorded failed; a failure of the platform, as an error.
 */
/** What an attempt is given by the function that runs it. */
export interface AttemptTools {
  /** The simulated caller's voice and ears in a language, for a voice case (the media service's speech clients). */
  callerLine: (language: string) => Promise<CallerLine>;
  wait?: (ms: number) => Promise<unknown>;
}

export async function runAttempt(
  ref: AttemptRef,
  { callerLine, wait = sleep }: AttemptTools,
): Promise<{ verdict: TestAttempt['verdict'] | 'skipped' }> {
  const { organization_id: orgId, workflow_id: agentId } = ref;
  const run = await repository.getTestRun(orgId, agentId, ref.test_run_id);
  if (!run || run.status !== 'running') return { verdict: 'skipped' };
  const startedAt = new Date().toISOString();
  const record = async (fields: Partial<TestAttempt>) => {
    const attempt: TestAttempt = { ...emptyAttempt(ref, startedAt, new Date().toISOString()), ...fields };
    await repository.putTestAttempt(orgId, agentId, attempt);
    return { verdict: attempt.verdict };
  };
  const testCase = await repository.getTestCase(orgId, agentId, ref.test_id);
  if (!testCase) return record({ error: 'The test case was deleted before it ran' });
  const deadline = Date.now() + testCase.timeout_seconds * 1000;
  if (!(await channelFree(orgId, deadline, wait)))
    return record({
      verdict: 'failed',
      error: `No channel was free for tests within ${testCase.timeout_seconds} s (half are kept for live calls)`,
    });
  const { model, owner } = await modelFor(orgId);
  const meter = tokenCounter();
  const modelCost = () => ({ model_tokens: meter.tokens, cost_usd: modelTokensUsd(meter.tokens, owner) });
  const voice = testCase.mode === 'voice';
  const name = `Test: ${testCase.name}`.slice(0, 255);
  const test = {
    test_run_id: run.id,
    test_id: testCase.id,
    tool_mocks: testCase.tool_mocks,
    call_real_tools: testCase.call_real_tools,
  };
  // A voice case over the local carrier (its handsets' address: a local setting) is a phone call;
  // on AWS, a voice session (docs/agent-tests.md says why).
  const handsets = voice ? optionalSetting('TEST_CALLER_HANDSETS_URL') : undefined;
  const phone = handsets
    ? phoneLine(handsets, {
        orgId,
        agentId,
        name,
        initialContext: testCase.initial_context,
        definitionId: run.definition_id,
        test,
      })
    : null;
  const conversation = phone
    ? null
    : await createConversation(orgId, String(agentId), {
        // A voice session carries Media Streams frames, as a phone line's.
        mode: voice ? 'webrtc' : 'chat',
        name,
        initial_context: testCase.initial_context,
        definition_id: run.definition_id,
        test,
      });
  const conversationId = () => (phone ? phone.runId() : conversation!.id);
  let talk: ChatTalk;
  try {
    const talking = {
      maxTurns: testCase.max_turns,
      timeoutSeconds: Math.max(1, Math.round((deadline - Date.now()) / 1000)),
      caller: simulatedCaller(testCase, model, meter),
    };
    talk = voice
      ? await talkOverVoice(phone?.connection ?? sessionConnection(conversation!.session!), {
          ...talking,
          interrupts: testCase.caller.behaviour.includes('interrupts'),
          line: await callerLine(testCase.caller.language),
        })
      : await talkOverChat(conversation!.session!, talking);
    if (phone) talk.toolCalls = await phone.toolCalls();
  } catch (error) {
    const message = (error as Error).message;
    logger.warn('A test conversation failed', { testRunId: ref.test_run_id, testId: ref.test_id, error: message });
    return record({
      verdict: (error as Error).name === 'ConversationTimeoutError' ? 'failed' : 'error',
      conversation_id: conversationId(),
      error: message,
      ...modelCost(),
    });
  }
  const ended = await endedRun(ref, conversationId()!, wait);
  const gathered = { ...(ended?.gathered_context ?? {}) };
  const disposition = typeof gathered.call_disposition === 'string' ? gathered.call_disposition : null;
  delete gathered.call_disposition;
  const outcome: ConversationOutcome = {
    transcript: talk.transcript,
    toolCalls: talk.toolCalls,
    path: (ended?.flow ?? []).map((step) => step.node_id),
    gathered,
    disposition,
    endedBy: talk.endedBy,
    callerTurns: talk.callerTurns,
  };
  const expectations = await evaluate(testCase, outcome, model, meter);
  return record({
    verdict: attemptVerdict(expectations),
    expectations,
    transcript: talk.transcript,
    tool_calls: talk.toolCalls,
    path: outcome.path,
    conversation_id: conversationId(),
    latency_ms: median(talk.latencies),
    turn_latencies_ms: talk.latencies,
    model_tokens: meter.tokens,
    // The conversation's own cost (the agent's time) and the caller's and judge's tokens.
    cost_usd: Math.round(((ended?.cost?.total_usd ?? 0) + modelCost().cost_usd) * 1e6) / 1e6,
  });
}

/** An attempt whose task failed (or exceeded the state machine's bound): recorded as an error, once. */
export async function recordCrashedAttempt(ref: AttemptRef, cause: string): Promise<void> {
  const existing = await repository.listTestAttempts(ref.organization_id, ref.workflow_id, ref.test_run_id);
  if (existing.some((item) => item.case_index === ref.case_index && item.attempt === ref.attempt)) return;
  const now = new Date().toISOString();
  await repository.putTestAttempt(ref.organization_id, ref.workflow_id, {
    ...emptyAttempt(ref, now, now),
    error: cause.slice(0, 1000),
  });
}

/** An attempt with nothing measured yet: an error until its fields say otherwise. */
function emptyAttempt(ref: AttemptRef, startedAt: string, endedAt: string): TestAttempt {
  return {
    test_run_id: ref.test_run_id,
    case_index: ref.case_index,
    test_id: ref.test_id,
    attempt: ref.attempt,
    verdict: 'error',
    expectations: [],
    transcript: [],
    tool_calls: [],
    path: [],
    conversation_id: null,
    latency_ms: null,
    turn_latencies_ms: [],
    cost_usd: 0,
    model_tokens: { input_tokens: 0, output_tokens: 0 },
    error: null,
    started_at: startedAt,
    ended_at: endedAt,
  };
}
