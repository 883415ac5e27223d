import { integrationRoutes } from '../../shared/api/routes/integrations.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as connections from '../../shared/services/connections.ts';
import { pageOfItems } from '../../shared/domain/pagination.ts';

export const handler = createApiHandler([
  operation(integrationRoutes.startConsent, async ({ body }, context) =>
    created(await connections.startConsent(callerOf(context).organizationId, body)),
  ),
  operation(integrationRoutes.createConnection, async ({ body }, context) =>
    created(await connections.createConnection(callerOf(context).organizationId, body)),
  ),
  operation(integrationRoutes.listConnections, async ({ query }, context) =>
    ok(pageOfItems((await connections.listConnections(callerOf(context).organizationId)).items, query)),
  ),
  operation(integrationRoutes.deleteConnection, async ({ params }, context) => {
    await connections.deleteConnection(callerOf(context).organizationId, params.connection_id);
    return noContent();
  }),
  operation(integrationRoutes.pickerToken, async ({ params }, context) =>
    ok(await connections.pickerToken(callerOf(context).organizationId, params.connection_id)),
  ),
]);
