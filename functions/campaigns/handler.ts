import { campaignRoutes } from '../../shared/api/routes/campaigns.ts';
import { campaignReportRoutes } from '../../shared/api/routes/campaign-reports.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { ok, type HttpResult } from '../../shared/http/response.ts';
import * as campaigns from '../../shared/services/campaigns.ts';

export const handler = createApiHandler([
  operation(campaignRoutes.createCampaign, async ({ headers, body }, context) =>
    ok(await campaigns.createCampaign(callerOf(context).organizationId, headers['idempotency-key'], body)),
  ),
  operation(campaignRoutes.listCampaigns, async ({ query }, context) =>
    ok(await campaigns.listCampaigns(callerOf(context).organizationId, query)),
  ),
  operation(campaignRoutes.getCampaign, async ({ params }, context) =>
    ok(await campaigns.getCampaign(callerOf(context).organizationId, params.campaign_id)),
  ),
  ...(['start', 'pause', 'resume', 'cancel'] as const).map((action) =>
    operation(campaignRoutes[`${action}Campaign`], async ({ params }, context) =>
      ok(await campaigns.changeCampaignState(callerOf(context).organizationId, params.campaign_id, action)),
    ),
  ),
  operation(campaignRoutes.campaignReport, async ({ params, query }, context) =>
    ok(await campaigns.reportPage(callerOf(context).organizationId, params.campaign_id, query)),
  ),
  operation(campaignReportRoutes.campaignReport, async ({ params, query }, context) =>
    ok(await campaigns.reportPage(callerOf(context).organizationId, params.campaign_id, query)),
  ),
  operation(campaignRoutes.campaignReportCsv, async ({ params }, context): Promise<HttpResult> => {
    const report = await campaigns.reportCsv(
      callerOf(context).organizationId,
      params.campaign_id,
      requestBaseUrl(context.event),
    );
    if (report.kind === 'link') return { status: 302, headers: { Location: report.url, 'Cache-Control': 'no-store' } };
    return {
      status: 200,
      rawBody: report.csv,
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="campaign-${params.campaign_id}-report.csv"`,
      },
    };
  }),
]).before((request) => campaigns.createCampaign.registerLambdaContext(request.context));
