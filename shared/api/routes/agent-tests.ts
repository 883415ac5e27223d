import { AgentIdParam } from '../../schemas/agents.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import {
  CreateTestRunRequest,
  TestRun,
  TestRunPage,
  TestRunParams,
  CreateTestCaseRequest,
  ListTestCasesQuery,
  TestCase,
  TestCasePage,
  TestCaseParams,
  UpdateTestCaseRequest,
} from '../../schemas/agent-tests.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const NAMES_CHECKED =
  'Expectations and mocks are checked against the agent: a tool, step, variable or disposition code it does not have (in its current version), a mock of a tool it does not have, or a turn limit the case cannot meet is a 422 pointing at the field. At most 200 cases per agent (409).';

export const agentTestRoutes = {
  createTestCase: defineRoute({
    operationId: 'createTestCase',
    method: 'POST',
    path: '/agents/{agent_id}/tests',
    group: 'agentTests',
    summary: 'Create a test case',
    description: `A simulated conversation with the agent: the caller a model plays (persona, goal, language, behaviour, optionally a script), the \`initial_context\`, mocked answers for the agent's HTTP tools, a turn limit, tags, and what the conversation must show (\`expectations\`: deterministic checks, and criteria in words a model grades). Run cases with \`POST /agents/{agent_id}/test-runs\`. ${NAMES_CHECKED}`,
    tags: ['Agent tests'],
    request: { params: AgentIdParam, body: CreateTestCaseRequest },
    responses: {
      201: { description: 'Created', schema: TestCase },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: { description: 'The agent has 200 test cases', schema: ErrorResponse },
      ...VALIDATION,
    },
  }),
  listTestCases: defineRoute({
    operationId: 'listTestCases',
    method: 'GET',
    path: '/agents/{agent_id}/tests',
    group: 'agentTests',
    summary: "List an agent's test cases",
    description: "The agent's test cases in the page envelope; `tag` keeps those with that tag.",
    tags: ['Agent tests'],
    request: { params: AgentIdParam, query: ListTestCasesQuery },
    responses: {
      200: { description: 'One page', schema: TestCasePage },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  getTestCase: defineRoute({
    operationId: 'getTestCase',
    method: 'GET',
    path: '/agents/{agent_id}/tests/{test_id}',
    group: 'agentTests',
    summary: 'Get a test case',
    description: 'One test case of the agent.',
    tags: ['Agent tests'],
    request: { params: TestCaseParams },
    responses: { 200: { description: 'Test case', schema: TestCase }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  updateTestCase: defineRoute({
    operationId: 'updateTestCase',
    method: 'PATCH',
    path: '/agents/{agent_id}/tests/{test_id}',
    group: 'agentTests',
    summary: 'Change a test case',
    description: `Each field given replaces the stored one; the case as it would be is checked again. ${NAMES_CHECKED} 409 when another request changed it meanwhile.`,
    tags: ['Agent tests'],
    request: { params: TestCaseParams, body: UpdateTestCaseRequest },
    responses: {
      200: { description: 'Changed', schema: TestCase },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: { description: 'Changed by another request meanwhile', schema: ErrorResponse },
      ...VALIDATION,
    },
  }),
  deleteTestCase: defineRoute({
    operationId: 'deleteTestCase',
    method: 'DELETE',
    path: '/agents/{agent_id}/tests/{test_id}',
    group: 'agentTests',
    summary: 'Delete a test case',
    description: 'Deletes the case; test runs that ran it keep their results.',
    tags: ['Agent tests'],
    request: { params: TestCaseParams },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  createTestRun: defineRoute({
    operationId: 'createTestRun',
    method: 'POST',
    path: '/agents/{agent_id}/test-runs',
    group: 'agentTests',
    summary: 'Run test cases against a version',
    description:
      "Runs the listed cases (`test_ids`), those with a `tag`, or all of the agent's, against `definition_id` (a draft included; the current version by default), each `repeat` times. Each case is a real chat conversation with the agent (the same agent loop as calls) against a caller played by a model; HTTP tools answer from the case's mocks. At most `parallelism` cases talk at once, and never more than half of the organization's channels: live calls keep the other half. A case past its `timeout_seconds` fails. Answers 201 with the run; `GET` it for progress and verdicts, or subscribe to `test_run.completed`. 409 for an archived agent (or an organization with a single channel), 404 for a version the agent does not have, 422 when no case is selected or a case names what the tested version lacks.",
    tags: ['Agent tests'],
    request: { params: AgentIdParam, body: CreateTestRunRequest },
    responses: {
      201: { description: 'Started', schema: TestRun },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: {
        description: 'The agent is archived, or the organization has no channel for tests',
        schema: ErrorResponse,
      },
      ...VALIDATION,
    },
  }),
  listTestRuns: defineRoute({
    operationId: 'listTestRuns',
    method: 'GET',
    path: '/agents/{agent_id}/test-runs',
    group: 'agentTests',
    summary: "List an agent's test runs",
    description:
      "The agent's test runs, newest first, each with its summary (without the cases' results: get the run).",
    tags: ['Agent tests'],
    request: { params: AgentIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: TestRunPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getTestRun: defineRoute({
    operationId: 'getTestRun',
    method: 'GET',
    path: '/agents/{agent_id}/test-runs/{test_run_id}',
    group: 'agentTests',
    summary: 'Get a test run with its verdicts',
    description:
      "The run's status and summary, and per case its verdict and each attempt: every expectation's result and reason, the transcript, the tool calls, the flow path, the latency, the cost and the conversation it ran in.",
    tags: ['Agent tests'],
    request: { params: TestRunParams },
    responses: { 200: { description: 'Test run', schema: TestRun }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  cancelTestRun: defineRoute({
    operationId: 'cancelTestRun',
    method: 'POST',
    path: '/agents/{agent_id}/test-runs/{test_run_id}/cancel',
    group: 'agentTests',
    summary: 'Cancel a test run',
    description:
      'No further case starts; conversations in progress finish and record their verdicts, which stay; the cases never run are `cancelled`. Sends `test_run.completed` with `status: "cancelled"`. 409 once the run has ended.',
    tags: ['Agent tests'],
    request: { params: TestRunParams },
    responses: {
      200: { description: 'Cancelled', schema: TestRun },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: { description: 'The run has ended', schema: ErrorResponse },
      ...VALIDATION,
    },
  }),
};
