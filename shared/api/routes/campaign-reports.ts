import { CampaignIdParam, ReportPage } from '../../schemas/campaigns.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

/** Served by the campaigns function: apart from the usage routes, so neither bundles the other's schemas. */
export const campaignReportRoutes = {
  campaignReport: defineRoute({
    operationId: 'getReportCampaign',
    method: 'GET',
    path: '/reports/campaigns/{campaign_id}',
    group: 'campaigns',
    summary: 'Campaign report as JSON (same as /campaigns/{id}/report)',
    description:
      'The campaign report as JSON, paginated; the same as `GET /campaigns/{campaign_id}/report`, under the `/reports` address.',
    tags: ['Usage and reports'],
    request: { params: CampaignIdParam, query: PaginationQuery },
    responses: {
      200: { description: 'One page of rows', schema: ReportPage },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
