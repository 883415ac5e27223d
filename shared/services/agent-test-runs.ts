import {
  attemptRefs,
  caseResults,
  MAX_TEST_RUN_ATTEMPTS,
  summarize,
  type TestRunRecord,
} from '../domain/agent-test-runs.ts';
import { channelsKeptForLiveCalls, lintTestCase, testRunParallelism } from '../domain/agent-tests.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import { emitTestRunCompleted } from '../events/webhook-events.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import * as repository from '../repositories/agent-tests.ts';
import { nextId } from '../repositories/counters.ts';
import { getOrganization } from '../repositories/organizations.ts';
import type { CreateTestRunRequest, TestCase, TestRun } from '../schemas/agent-tests.ts';
import type { Agent } from '../schemas/agents.ts';
import { startNamedExecution, stopExecution } from '../workflows/executions.ts';
import { getAgent } from './agents.ts';
import { runDefinitionId } from './definitions.ts';
import { testSubject, validationError } from './agent-tests.ts';

export const TEST_RUN_STATE_MACHINE = 'AGENT_TEST_RUN_STATE_MACHINE_ARN';
const executionName = (orgId: number, testRunId: number) => `test-run-${orgId}-${testRunId}`;

/** The cases a run selects: the listed ones (422 at an unknown id), those with the tag, or all. */
async function selectCases(orgId: number, agent: Agent, request: CreateTestRunRequest): Promise<TestCase[]> {
  if (request.test_ids) {
    const found = await Promise.all(request.test_ids.map((id) => repository.getTestCase(orgId, agent.id, id)));
    const missing = request.test_ids.flatMap((id, index) => (found[index] ? [] : [index]));
    if (missing.length)
      throw new RequestValidationError(
        missing.map((index) => ({
          type: 'value_error',
          loc: ['body', 'test_ids', index],
          msg: `Value error, the agent has no test case '${request.test_ids![index]}'`,
          input: request.test_ids![index],
          ctx: { error: `the agent has no test case '${request.test_ids![index]}'` },
        })),
      );
    return [...new Map(found.map((item) => [item!.id, item!])).values()];
  }
  const { items } = await repository.listTestCases(orgId, agent.id, 0, undefined, request.tag);
  return items;
}

/**
 * Starts a test run: the selected cases against the version (a draft included), each repeated,
 * as an agent-test-run execution (a Map state over the attempts, at most `parallelism` at once,
 * within the channels tests may use). 409 for an archived agent or an organization with a single
 * channel (kept for calls); 404 for a version the agent does not have; 422 when no case is
 * selected, or a case names what the tested version does not have.
 */
export async function createTestRun(orgId: number, agentRef: string, request: CreateTestRunRequest): Promise<TestRun> {
  const agent = await getAgent(orgId, agentRef);
  if (agent.status !== 'active') throw new ConflictError('The agent is archived; unarchive it to run its tests');
  const definitionId = await runDefinitionId(orgId, agent, request.definition_id);
  const cases = await selectCases(orgId, agent, request);
  const where = request.test_ids ? 'test_ids' : request.tag ? 'tag' : 'test_ids';
  if (!cases.length)
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', where],
        msg: `Value error, no test case of the agent is selected${request.tag ? ` (none has the tag '${request.tag}')` : ''}`,
        input: request.tag ?? request.test_ids ?? null,
        ctx: { error: 'no test case selected' },
      },
    ]);
  if (cases.length * request.repeat > MAX_TEST_RUN_ATTEMPTS)
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'repeat'],
        msg: `Value error, ${cases.length} cases × ${request.repeat} is more than ${MAX_TEST_RUN_ATTEMPTS} attempts`,
        input: request.repeat,
        ctx: { error: `at most ${MAX_TEST_RUN_ATTEMPTS} attempts` },
      },
    ]);
  const subject = await testSubject(orgId, agent, definitionId);
  const issues = cases.flatMap((testCase) =>
    lintTestCase(testCase, subject).map((issue) => ({
      ...issue,
      message: `test case '${testCase.name}' (${testCase.id}): ${issue.message} at ${issue.path.join('.')}`,
      path: [],
    })),
  );
  if (issues.length) throw validationError(issues, ['body', 'definition_id'], definitionId);
  const organization = await getOrganization(orgId);
  const channels = organization?.maxConcurrentCalls ?? 0;
  if (channels <= channelsKeptForLiveCalls(channels))
    throw new ConflictError(
      `Tests use at most half of the organization's channels; with ${channels} there is none for them`,
    );
  const run: TestRunRecord = {
    id: await nextId('testRun'),
    organization_id: orgId,
    workflow_id: agent.id,
    definition_id: definitionId,
    status: 'running',
    cases: cases.map((testCase, index) => ({ index, test_id: testCase.id, name: testCase.name })),
    repeat: request.repeat,
    parallelism: testRunParallelism(request.parallelism, channels),
    created_at: new Date().toISOString(),
    completed_at: null,
  };
  await repository.insertTestRun(orgId, run);
  await startNamedExecution(TEST_RUN_STATE_MACHINE, executionName(orgId, run.id), {
    run: { organization_id: orgId, workflow_id: agent.id, test_run_id: run.id },
    attempts: attemptRefs(run),
    parallelism: run.parallelism,
  });
  return view(run, []);
}

function view(run: TestRunRecord, attempts: Parameters<typeof caseResults>[1]): TestRun {
  const results = caseResults(run, attempts);
  const { organization_id: _org, cases: _cases, ...fields } = run;
  return {
    ...fields,
    summary: summarize(results),
    cases: results.map(({ index: _index, attempts: own, ...result }) => ({
      ...result,
      attempts: own.map(({ test_run_id: _run, case_index: _case, test_id: _test, ...attempt }) => attempt),
    })),
  };
}

async function findTestRun(orgId: number, agent: Agent, testRunId: number): Promise<TestRunRecord> {
  const run = await repository.getTestRun(orgId, agent.id, testRunId);
  if (!run) throw new NotFoundError('Test run not found');
  return run;
}

export async function getTestRun(orgId: number, agentRef: string, testRunId: number): Promise<TestRun> {
  const agent = await getAgent(orgId, agentRef);
  const run = await findTestRun(orgId, agent, testRunId);
  return view(run, await repository.listTestAttempts(orgId, agent.id, run.id));
}

/** The agent's test runs, newest first, each with its summary (of what it has recorded so far). */
export async function listTestRuns(orgId: number, agentRef: string, page: PageRequest) {
  const agent = await getAgent(orgId, agentRef);
  const { items, totalCount } = await repository.listTestRuns(orgId, agent.id, pageOffset(page), page.limit);
  const runs = await Promise.all(
    items.map(async (run) => {
      const { cases: _cases, ...listed } = view(run, await repository.listTestAttempts(orgId, agent.id, run.id));
      return listed;
    }),
  );
  return { items: runs, ...pageInfo(page, totalCount) };
}

/** The event once a run has entered its final state (a transition that happened exactly once). */
async function announce(run: TestRunRecord, completedAt: string): Promise<TestRun> {
  const result = view(
    { ...run, completed_at: completedAt },
    await repository.listTestAttempts(run.organization_id, run.workflow_id, run.id),
  );
  await emitTestRunCompleted({
    organization_id: run.organization_id,
    workflow_id: run.workflow_id,
    test_run_id: run.id,
    definition_id: run.definition_id,
    status: run.status === 'cancelled' ? 'cancelled' : 'completed',
    summary: result.summary,
    failing_cases: result.cases
      .filter((item) => item.verdict === 'failed' || item.verdict === 'error')
      .map(({ test_id, name, verdict }) => ({ test_id, name, verdict })),
    completed_at: completedAt,
  });
  return result;
}

/**
 * Cancels a running test run: no new case starts (the execution is stopped), the verdicts
 * recorded so far stay, the cases not run are `cancelled`. 409 once it has ended.
 */
export async function cancelTestRun(orgId: number, agentRef: string, testRunId: number): Promise<TestRun> {
  const agent = await getAgent(orgId, agentRef);
  const run = await findTestRun(orgId, agent, testRunId);
  const now = new Date().toISOString();
  if (!(await repository.transitionTestRun(orgId, agent.id, run.id, ['running'], 'cancelled', { completed_at: now })))
    throw new ConflictError(`The test run has ended (${(await findTestRun(orgId, agent, testRunId)).status})`);
  await stopExecution(TEST_RUN_STATE_MACHINE, executionName(orgId, run.id));
  return announce({ ...run, status: 'cancelled' }, now);
}

/** The state machine's last task: the run is completed (unless cancelled meanwhile) and announced. */
export async function completeTestRun(ref: {
  organization_id: number;
  workflow_id: number;
  test_run_id: number;
}): Promise<void> {
  const run = await repository.getTestRun(ref.organization_id, ref.workflow_id, ref.test_run_id);
  if (!run) return;
  const now = new Date().toISOString();
  if (
    !(await repository.transitionTestRun(run.organization_id, run.workflow_id, run.id, ['running'], 'completed', {
      completed_at: now,
    }))
  )
    return;
  await announce({ ...run, status: 'completed' }, now);
}
