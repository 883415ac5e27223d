import { callRoutes } from '../../shared/api/routes/calls.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { ok } from '../../shared/http/response.ts';
import { endCall } from '../../shared/services/call-control.ts';
import { placeCallOnce, registerIdempotencyContext } from '../../shared/services/idempotent-calls.ts';
import { getTrigger } from '../../shared/services/triggers.ts';

export const handler = createApiHandler([
  operation(callRoutes.placeCall, async ({ params, headers, body }, context) =>
    ok(await placeCallOnce(callerOf(context).organizationId, headers['idempotency-key'], params.agent_id, body)),
  ),
  operation(callRoutes.placeCallLegacy, async ({ params, headers, body }, context) =>
    ok(
      await placeCallOnce(
        callerOf(context).organizationId,
        headers['idempotency-key'],
        String(params.workflow_id),
        body,
      ),
    ),
  ),
  operation(callRoutes.placeTriggerCall, async ({ params, headers, body }, context) => {
    const { organizationId } = callerOf(context);
    const trigger = await getTrigger(organizationId, params.trigger_id);
    return ok(await placeCallOnce(organizationId, headers['idempotency-key'], String(trigger.workflow_id), body));
  }),
  operation(callRoutes.endCall, async ({ params }, context) => ({
    status: 202,
    body: await endCall(callerOf(context).organizationId, params.agent_id, params.conversation_id),
  })),
]).before((request) => registerIdempotencyContext(request.context));
