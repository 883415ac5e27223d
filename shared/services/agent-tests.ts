import { definitionParts } from '../domain/agent-test-runs.ts';
import { lintTestCase, type TestCaseIssue, type TestSubject } from '../domain/agent-tests.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import { RequestValidationError, type Loc } from '../http/validation-error.ts';
import * as repository from '../repositories/agent-tests.ts';
import { listTools } from '../repositories/agent-resources.ts';
import * as definitions from '../repositories/definitions.ts';
import {
  TEST_CASE_CAPS,
  type CreateTestCaseRequest,
  type TestCase,
  type UpdateTestCaseRequest,
} from '../schemas/agent-tests.ts';
import type { Agent } from '../schemas/agents.ts';
import { getAgent } from './agents.ts';

/** What a case of `agent` may name when it tests `definitionId` (the agent's current version by default). */
export async function testSubject(orgId: number, agent: Agent, definitionId = agent.current_definition_id) {
  const [tools, version] = await Promise.all([
    listTools(orgId, agent.id),
    definitionId === agent.current_definition_id
      ? { workflow_definition: agent.workflow_definition }
      : definitions.getDefinition(orgId, agent.id, definitionId),
  ]);
  if (!version) throw new NotFoundError('Definition not found');
  const subject: TestSubject = {
    tools: tools.map((tool) => tool.name),
    dispositions: Object.keys(agent.call_disposition_codes ?? {}),
    ...definitionParts(version.workflow_definition as Record<string, unknown>),
  };
  return subject;
}

/** The issues as FastAPI's 422 items at `root` (the body, or where a run names the case). */
export function validationError(issues: readonly TestCaseIssue[], root: Loc, input: unknown): RequestValidationError {
  return new RequestValidationError(
    issues.map((issue) => ({
      type: 'value_error',
      loc: [...root, ...issue.path] as Loc,
      msg: `Value error, ${issue.message}`,
      input: issue.path.reduce<unknown>(
        (value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
        input,
      ),
      ctx: { error: issue.message },
    })),
  );
}

async function assertNamesExist(orgId: number, agent: Agent, testCase: Parameters<typeof lintTestCase>[0]) {
  const issues = lintTestCase(testCase, await testSubject(orgId, agent));
  if (issues.length) throw validationError(issues, ['body'], testCase);
}

export async function createTestCase(
  orgId: number,
  agentRef: string,
  request: CreateTestCaseRequest,
): Promise<TestCase> {
  const agent = await getAgent(orgId, agentRef);
  await assertNamesExist(orgId, agent, request);
  if ((await repository.countTestCases(orgId, agent.id)) >= TEST_CASE_CAPS.perAgent)
    throw new ConflictError(`An agent has at most ${TEST_CASE_CAPS.perAgent} test cases`);
  const now = new Date().toISOString();
  const testCase: TestCase = {
    id: `test_${randomAlphanumeric(16)}`,
    workflow_id: agent.id,
    ...request,
    created_at: now,
    updated_at: now,
  };
  await repository.insertTestCase(orgId, testCase);
  return testCase;
}

export async function listTestCases(orgId: number, agentRef: string, query: PageRequest & { tag?: string }) {
  const agent = await getAgent(orgId, agentRef);
  const { items, totalCount } = await repository.listTestCases(
    orgId,
    agent.id,
    pageOffset(query),
    query.limit,
    query.tag,
  );
  return { items, ...pageInfo(query, totalCount) };
}

async function findTestCase(orgId: number, agent: Agent, testId: string): Promise<TestCase> {
  const testCase = await repository.getTestCase(orgId, agent.id, testId);
  if (!testCase) throw new NotFoundError('Test case not found');
  return testCase;
}

export async function getTestCase(orgId: number, agentRef: string, testId: string): Promise<TestCase> {
  return findTestCase(orgId, await getAgent(orgId, agentRef), testId);
}

/** Replaces the fields given, after checking the whole case as it would be. */
export async function updateTestCase(
  orgId: number,
  agentRef: string,
  testId: string,
  request: UpdateTestCaseRequest,
): Promise<TestCase> {
  const agent = await getAgent(orgId, agentRef);
  const stored = await findTestCase(orgId, agent, testId);
  const changes = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const updated: TestCase = { ...stored, ...changes, updated_at: new Date().toISOString() };
  const issues = lintTestCase(updated, await testSubject(orgId, agent));
  if (issues.length) throw validationError(issues, ['body'], updated);
  if (!Object.keys(changes).length) return stored;
  if (
    !(await repository.updateTestCase(
      orgId,
      agent.id,
      testId,
      { ...changes, updated_at: updated.updated_at },
      stored.updated_at,
    ))
  )
    throw new ConflictError('The test case was changed or deleted by another request; fetch it and retry');
  return updated;
}

export async function deleteTestCase(orgId: number, agentRef: string, testId: string): Promise<void> {
  const agent = await getAgent(orgId, agentRef);
  if (!(await repository.deleteTestCase(orgId, agent.id, testId))) throw new NotFoundError('Test case not found');
}
