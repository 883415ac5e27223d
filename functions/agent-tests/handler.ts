import { agentTestRoutes } from '../../shared/api/routes/agent-tests.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as tests from '../../shared/services/agent-tests.ts';
import * as testRuns from '../../shared/services/agent-test-runs.ts';

export const handler = createApiHandler([
  operation(agentTestRoutes.createTestCase, async ({ params, body }, context) =>
    created(await tests.createTestCase(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(agentTestRoutes.listTestCases, async ({ params, query }, context) =>
    ok(await tests.listTestCases(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(agentTestRoutes.getTestCase, async ({ params }, context) =>
    ok(await tests.getTestCase(callerOf(context).organizationId, params.agent_id, params.test_id)),
  ),
  operation(agentTestRoutes.updateTestCase, async ({ params, body }, context) =>
    ok(await tests.updateTestCase(callerOf(context).organizationId, params.agent_id, params.test_id, body)),
  ),
  operation(agentTestRoutes.deleteTestCase, async ({ params }, context) => {
    await tests.deleteTestCase(callerOf(context).organizationId, params.agent_id, params.test_id);
    return noContent();
  }),
  operation(agentTestRoutes.createTestRun, async ({ params, body }, context) =>
    created(await testRuns.createTestRun(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(agentTestRoutes.listTestRuns, async ({ params, query }, context) =>
    ok(await testRuns.listTestRuns(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(agentTestRoutes.getTestRun, async ({ params }, context) =>
    ok(await testRuns.getTestRun(callerOf(context).organizationId, params.agent_id, params.test_run_id)),
  ),
  operation(agentTestRoutes.cancelTestRun, async ({ params }, context) =>
    ok(await testRuns.cancelTestRun(callerOf(context).organizationId, params.agent_id, params.test_run_id)),
  ),
]);
