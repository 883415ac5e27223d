import { usageRoutes } from '../../shared/api/routes/usage.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { ok, type HttpResult } from '../../shared/http/response.ts';
import * as usage from '../../shared/services/usage.ts';
import { latencyUsage } from '../../shared/services/call-latency.ts';

const usageCsvResult = async (orgId: number, query: { from?: string; to?: string }): Promise<HttpResult> => ({
  status: 200,
  rawBody: await usage.usageCsv(orgId, query),
  headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="usage.csv"' },
});

export const handler = createApiHandler([
  operation(usageRoutes.usage, async ({ query }, context) =>
    ok(await usage.usageReport(callerOf(context).organizationId, query)),
  ),
  operation(usageRoutes.latency, async ({ query }, context) =>
    ok(await latencyUsage(callerOf(context).organizationId, query)),
  ),
  operation(usageRoutes.legacyUsage, async ({ query }, context) =>
    ok(await usage.usageReport(callerOf(context).organizationId, query)),
  ),
  operation(usageRoutes.usageCsv, async ({ query }, context) =>
    usageCsvResult(callerOf(context).organizationId, query),
  ),
  operation(usageRoutes.legacyCurrentPeriod, async (_input, context) =>
    ok(await usage.currentPeriod(callerOf(context).organizationId)),
  ),
  operation(usageRoutes.legacyDailyBreakdown, async ({ query }, context) =>
    ok(await usage.usageDailyBreakdown(callerOf(context).organizationId, query)),
  ),
  operation(usageRoutes.legacyBilledRuns, async ({ query }, context) =>
    ok(await usage.billedRuns(callerOf(context).organizationId, query)),
  ),
  operation(usageRoutes.legacyBilledRunsReport, async ({ query }, context) =>
    usageCsvResult(callerOf(context).organizationId, query),
  ),
]);
