import { agentTestRoutes } from '../../shared/api/routes/agent-tests.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as tests from '../../shared/services/agent-tests.ts';

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
]);
