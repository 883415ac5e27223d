import { webhookRoutes } from '../../shared/api/routes/webhooks.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as webhooks from '../../shared/services/webhooks.ts';

export const handler = createApiHandler([
  operation(webhookRoutes.createWebhook, async ({ body }, context) => created(await webhooks.createWebhook(callerOf(context).organizationId, body))),
  operation(webhookRoutes.listWebhooks, async (_input, context) => ok(await webhooks.listWebhooks(callerOf(context).organizationId))),
  operation(webhookRoutes.deleteWebhook, async ({ params }, context) => {
    await webhooks.deleteWebhook(callerOf(context).organizationId, params.webhook_id);
    return noContent();
  }),
  operation(webhookRoutes.listDeliveries, async ({ params, query }, context) =>
    ok(await webhooks.listDeliveries(callerOf(context).organizationId, params.webhook_id, query)),
  ),
]);
