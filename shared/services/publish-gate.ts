import { caseResults } from '../domain/agent-test-runs.ts';
import { ConflictError } from '../domain/errors.ts';
import * as repository from '../repositories/agent-tests.ts';
import type { Agent } from '../schemas/agents.ts';

const PAGE = 20;

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
