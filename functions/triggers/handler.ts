import { triggerRoutes } from '../../shared/api/routes/triggers.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as triggers from '../../shared/services/triggers.ts';

export const handler = createApiHandler([
  operation(triggerRoutes.createTrigger, async ({ body }, context) =>
    created(await triggers.createTrigger(callerOf(context).organizationId, body)),
  ),
  operation(triggerRoutes.listTriggers, async ({ query }, context) =>
    ok(await triggers.listTriggers(callerOf(context).organizationId, query)),
  ),
  operation(triggerRoutes.getTrigger, async ({ params }, context) =>
    ok(await triggers.getTrigger(callerOf(context).organizationId, params.trigger_id)),
  ),
  operation(triggerRoutes.deleteTrigger, async ({ params }, context) => {
    await triggers.deleteTrigger(callerOf(context).organizationId, params.trigger_id);
    return noContent();
  }),
]);
