import { webhookRoutes } from '../../shared/api/routes/webhooks.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '../../shared/domain/webhook-limits.ts';
import * as webhooks from '../../shared/services/webhooks.ts';

export const handler = createApiHandler([
  operation(webhookRoutes.createWebhook, async ({ body }, context) =>
    created(await webhooks.createWebhook(callerOf(context).organizationId, body)),
  ),
  operation(webhookRoutes.listWebhooks, async ({ query }, context) =>
    ok(await webhooks.listWebhooks(callerOf(context).organizationId, query)),
  ),
  operation(webhookRoutes.updateWebhook, async ({ params, body }, context) =>
    ok(await webhooks.updateWebhook(callerOf(context).organizationId, params.webhook_id, body)),
  ),
  operation(webhookRoutes.deleteWebhook, async ({ params }, context) => {
    await webhooks.deleteWebhook(callerOf(context).organizationId, params.webhook_id);
    return noContent();
  }),
  operation(webhookRoutes.listDeliveries, async ({ params, query }, context) =>
    ok(await webhooks.listDeliveries(callerOf(context).organizationId, params.webhook_id, query)),
  ),
  operation(webhookRoutes.testWebhook, async ({ params, body }, context) =>
    ok(await webhooks.sendTestEvent(callerOf(context).organizationId, params.webhook_id, body?.event_type)),
  ),
  operation(webhookRoutes.retryDelivery, async ({ params }, context) => ({
    status: 202,
    body: await webhooks.retryDelivery(callerOf(context).organizationId, params.webhook_id, params.delivery_id),
  })),
  operation(webhookRoutes.rotateSecret, async ({ params, body }, context) =>
    ok(
      await webhooks.rotateSecret(
        callerOf(context).organizationId,
        params.webhook_id,
        body?.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS,
      ),
    ),
  ),
]);
