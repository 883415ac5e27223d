import { doNotCallRoutes } from '../../shared/api/routes/do-not-call.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as doNotCall from '../../shared/services/do-not-call.ts';

export const handler = createApiHandler([
  operation(doNotCallRoutes.addDoNotCall, async ({ body }, context) => {
    const { entry, created: isNew } = await doNotCall.addNumber(callerOf(context).organizationId, body.phone_number);
    return isNew ? created(entry) : ok(entry);
  }),
  operation(doNotCallRoutes.listDoNotCall, async ({ query }, context) =>
    ok(await doNotCall.listNumbers(callerOf(context).organizationId, query)),
  ),
  operation(doNotCallRoutes.removeDoNotCall, async ({ params }, context) => {
    await doNotCall.removeNumber(callerOf(context).organizationId, params.phone_number);
    return noContent();
  }),
]);
