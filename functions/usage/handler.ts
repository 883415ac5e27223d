import { usageRoutes } from '../../shared/api/routes/usage.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { ok } from '../../shared/http/response.ts';
import * as usage from '../../shared/services/usage.ts';

export const handler = createApiHandler([
  operation(usageRoutes.usage, async ({ query }, context) => ok(await usage.usageReport(callerOf(context).organizationId, query))),
  operation(usageRoutes.legacyUsage, async ({ query }, context) => ok(await usage.usageReport(callerOf(context).organizationId, query))),
  operation(usageRoutes.usageCsv, async ({ query }, context) => ({
    status: 200,
    rawBody: await usage.usageCsv(callerOf(context).organizationId, query),
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="usage.csv"' },
  })),
]);
