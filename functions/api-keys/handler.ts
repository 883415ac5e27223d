import { apiKeyRoutes } from '../../shared/api/routes/api-keys.ts';
import { pageOfItems } from '../../shared/domain/pagination.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import * as organizations from '../../shared/services/organizations.ts';

export const handler = createApiHandler([
  operation(apiKeyRoutes.createApiKey, async ({ body }, context) => {
    const { organizationId } = callerOf(context);
    const key = await organizations.createApiKey(organizationId, body.name);
    return created({
      ...organizations.publicApiKey({ id: key.id, name: body.name, createdAt: key.createdAt, revokedAt: null }),
      key: key.key,
    });
  }),
  operation(apiKeyRoutes.listApiKeys, async ({ query }, context) => {
    const keys = await organizations.listApiKeys(callerOf(context).organizationId);
    const page = pageOfItems(
      keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(organizations.publicApiKey),
      query,
    );
    return ok(page);
  }),
  operation(apiKeyRoutes.revokeApiKey, async ({ params }, context) => {
    const caller = callerOf(context);
    await organizations.revokeApiKey(params.key_id, {
      organizationId: caller.organizationId,
      exceptKeyId: caller.keyId,
    });
    return noContent();
  }),
]);
