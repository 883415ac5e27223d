import { agentRoutes } from '../../shared/api/routes/agents.ts';
import { definitionRoutes } from '../../shared/api/routes/definitions.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { created, ok } from '../../shared/http/response.ts';
import * as agents from '../../shared/services/agents.ts';
import * as definitions from '../../shared/services/definitions.ts';

export const handler = createApiHandler([
  operation(agentRoutes.listAgents, async ({ query }, context) => {
    const list = await agents.listAgents(callerOf(context).organizationId, query);
    const headers: Record<string, string> = {};
    if (list.totalCount !== undefined) headers['X-Total-Count'] = String(list.totalCount);
    if (list.totalPages !== undefined) headers['X-Total-Pages'] = String(list.totalPages);
    if (list.truncated) {
      headers['X-Truncated'] = 'true';
      // Unpaged, the answer holds whole pages of `limit` agents; the next page continues it.
      const count = list.agents.length;
      if (query.page === undefined && query.limit === undefined && count > 0) {
        const limit = Math.min(count, agents.AGENT_LIST_MAX_LIMIT);
        const next = new URLSearchParams({
          ...(query.status && { status: query.status }),
          page: String(count / limit + 1),
          limit: String(limit),
        });
        headers.Link = `<${requestBaseUrl(context.event)}/agents?${next}>; rel="next"`;
      }
    }
    return ok(list.agents, headers);
  }),
  operation(agentRoutes.createAgent, async ({ body }, context) =>
    created(await agents.createAgent(callerOf(context).organizationId, body)),
  ),
  operation(agentRoutes.agentSummary, async (_input, context) =>
    ok(await agents.summarizeAgents(callerOf(context).organizationId)),
  ),
  operation(agentRoutes.getAgent, async ({ params }, context) =>
    ok(await agents.getAgent(callerOf(context).organizationId, params.agent_id)),
  ),
  operation(agentRoutes.updateAgent, async ({ params, body }, context) =>
    ok(await agents.updateAgent(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(agentRoutes.archiveAgent, async ({ params }, context) =>
    ok(await agents.setAgentStatus(callerOf(context).organizationId, params.agent_id, 'archived')),
  ),
  operation(agentRoutes.unarchiveAgent, async ({ params }, context) =>
    ok(await agents.setAgentStatus(callerOf(context).organizationId, params.agent_id, 'active')),
  ),
  operation(definitionRoutes.listDefinitions, async ({ params, query }, context) =>
    ok(await definitions.listDefinitions(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(definitionRoutes.saveDraft, async ({ params, body }, context) =>
    created(await definitions.saveDraft(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(definitionRoutes.getDefinition, async ({ params }, context) =>
    ok(await definitions.getDefinition(callerOf(context).organizationId, params.agent_id, params.definition_id)),
  ),
  operation(definitionRoutes.publishDefinition, async ({ params }, context) =>
    ok(await definitions.publishDefinition(callerOf(context).organizationId, params.agent_id, params.definition_id)),
  ),
]);
