import { agentRoutes } from '../../shared/api/routes/agents.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, ok } from '../../shared/http/response.ts';
import * as agents from '../../shared/services/agents.ts';

export const handler = createApiHandler([
  operation(agentRoutes.listAgents, async ({ query }, context) => {
    const list = await agents.listAgents(callerOf(context).organizationId, query);
    const headers =
      list.totalCount === undefined
        ? undefined
        : { 'X-Total-Count': String(list.totalCount), 'X-Total-Pages': String(list.totalPages) };
    return ok(list.agents, headers);
  }),
  operation(agentRoutes.createAgent, async ({ body }, context) => created(await agents.createAgent(callerOf(context).organizationId, body))),
  operation(agentRoutes.agentSummary, async (_input, context) => ok(await agents.summarizeAgents(callerOf(context).organizationId))),
  operation(agentRoutes.getAgent, async ({ params }, context) => ok(await agents.getAgent(callerOf(context).organizationId, params.agent_id))),
  operation(agentRoutes.updateAgent, async ({ params, body }, context) =>
    ok(await agents.updateAgent(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(agentRoutes.archiveAgent, async ({ params }, context) =>
    ok(await agents.setAgentStatus(callerOf(context).organizationId, params.agent_id, 'archived')),
  ),
  operation(agentRoutes.unarchiveAgent, async ({ params }, context) =>
    ok(await agents.setAgentStatus(callerOf(context).organizationId, params.agent_id, 'active')),
  ),
]);
