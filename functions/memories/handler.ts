import { memoryRoutes } from '../../shared/api/routes/memories.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as memories from '../../shared/services/memories.ts';

export const handler = createApiHandler([
  operation(memoryRoutes.listMemories, async ({ params, query }, context) =>
    ok(await memories.listMemories(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(memoryRoutes.createMemory, async ({ params, body }, context) =>
    created(await memories.createMemory(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(memoryRoutes.getMemory, async ({ params }, context) =>
    ok(await memories.getMemory(callerOf(context).organizationId, params.agent_id, params.memory_id)),
  ),
  operation(memoryRoutes.updateMemory, async ({ params, body }, context) =>
    ok(await memories.updateMemory(callerOf(context).organizationId, params.agent_id, params.memory_id, body)),
  ),
  operation(memoryRoutes.deleteMemory, async ({ params }, context) => {
    await memories.deleteMemory(callerOf(context).organizationId, params.agent_id, params.memory_id);
    return noContent();
  }),
]);
