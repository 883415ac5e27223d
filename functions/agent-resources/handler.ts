import { knowledgeRoutes, toolRoutes } from '../../shared/api/routes/agent-resources.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as resources from '../../shared/services/agent-resources.ts';
import { pageOfItems } from '../../shared/domain/pagination.ts';

export const handler = createApiHandler([
  operation(knowledgeRoutes.addDocument, async ({ params, body }, context) =>
    created(await resources.addKnowledgeDocument(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(knowledgeRoutes.listDocuments, async ({ params, query }, context) =>
    ok(await resources.listKnowledgeDocuments(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(knowledgeRoutes.deleteDocument, async ({ params }, context) => {
    await resources.deleteKnowledgeDocument(callerOf(context).organizationId, params.agent_id, params.document_id);
    return noContent();
  }),
  operation(knowledgeRoutes.search, async ({ params, query }, context) =>
    ok(await resources.searchKnowledge(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(toolRoutes.createTool, async ({ params, body }, context) =>
    created(await resources.createTool(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(toolRoutes.listTools, async ({ params, query }, context) =>
    ok(pageOfItems((await resources.listTools(callerOf(context).organizationId, params.agent_id)).items, query)),
  ),
  operation(toolRoutes.getTool, async ({ params }, context) =>
    ok(await resources.getTool(callerOf(context).organizationId, params.agent_id, params.tool_id)),
  ),
  operation(toolRoutes.deleteTool, async ({ params }, context) => {
    await resources.deleteTool(callerOf(context).organizationId, params.agent_id, params.tool_id);
    return noContent();
  }),
]);
