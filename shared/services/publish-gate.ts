import { caseResults } from '../domain/agent-test-runs.ts';
import { ConflictError } from '../domain/errors.ts';
import * as repository from '../repositories/agent-tests.ts';
import type { Agent } from '../schemas/agents.ts';

const PAGE = 20;

/**
 * The gate on `PATCH /agents/{agent_id}`: a changed `workflow_definition` there is published at
 * once as a new version, which no test can have run, so an agent (as the PATCH leaves it) that
 * requires passing tests refuses it (409), saying how to publish it tested.
 */
export function assertPatchMayPublish(agent: Agent): void {
  if (agent.workflow_configurations.publish_requires_passing_tests !== true) return;
  const path = `/agents/${agent.public_id}`;
  throw new ConflictError(
    `Publishing requires passing tests: a changed workflow_definition in PATCH ${path} would publish a version no test has run; ` +
      `save it as a draft (POST ${path}/definitions), run its tests (POST ${path}/test-runs with its definition_id), then publish it (POST ${path}/definitions/{definition_id}/publish)`,
  );
}

/**
 * The publish gate of an agent that requires passing tests
 * (`workflow_configurations.publish_requires_passing_tests`): the version's latest completed test
 * run must have passed every case. 409 naming the failing cases, or saying there is no such run.
 */
export async function assertTestsPassed(orgId: number, agent: Agent, definitionId: number): Promise<void> {
  if (agent.workflow_configurations.publish_requires_passing_tests !== true) return;
  for (let offset = 0; ; offset += PAGE) {
    const { items } = await repository.listTestRuns(orgId, agent.id, offset, PAGE);
    const latest = items.find((run) => run.definition_id === definitionId && run.status === 'completed');
    if (latest) {
      const results = caseResults(latest, await repository.listTestAttempts(orgId, agent.id, latest.id));
      const failing = results.filter((item) => item.verdict !== 'passed');
      if (!failing.length) return;
      throw new ConflictError(
        `Publishing requires passing tests: test run ${latest.id} of version ${definitionId} has failing cases: ${failing
          .map((item) => `'${item.name}' (${item.test_id}, ${item.verdict})`)
          .join(', ')}`,
      );
    }
    if (items.length < PAGE) break;
  }
  throw new ConflictError(
    `Publishing requires passing tests: version ${definitionId} has no completed test run (POST /agents/${agent.public_id}/test-runs with its definition_id)`,
  );
}
