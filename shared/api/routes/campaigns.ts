import { ErrorResponse } from '../../schemas/common.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';
import {
  Campaign,
  CampaignIdParam,
  CampaignPage,
  CreateCampaignHeaders,
  CreateCampaignRequest,
  ReportPage,
} from '../../schemas/campaigns.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const CAMPAIGN_STATES_DESCRIPTION =
  'States: `draft` → `running` (start) ⇄ `paused` (pause / resume) → `completed` when every contact is final; `scheduled` (created with ' +
  '`scheduled_start_at`) starts itself then, or on start; `cancelled` from any state but `completed`. Any other transition is a 409.';

const transitionRoute = (action: 'start' | 'pause' | 'resume' | 'cancel', summary: string, description: string) =>
  defineRoute({
    operationId: `${action}Campaign`,
    method: 'POST',
    path: `/campaigns/{campaign_id}/${action}`,
    group: 'campaigns',
    summary,
    description: `${description} ${CAMPAIGN_STATES_DESCRIPTION}`,
    tags: ['Campaigns'],
    request: { params: CampaignIdParam },
    responses: {
      200: { description: 'Campaign', schema: Campaign },
      409: { description: 'Transition not allowed', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  });

export const campaignRoutes = {
  createCampaign: defineRoute({
    operationId: 'createCampaign',
    method: 'POST',
    path: '/campaigns',
    group: 'campaigns',
    summary: 'Create a campaign',
    description:
      'Sources: `manual` (`manual_contacts`) and `csv` (`source_config.csv_text`, a header row; the phone column is the one named phone/tel/mobile/number or ' +
      '`source_config.phone_column`, else detected from the values; first_name, last_name and timezone columns are optional). Rows with an invalid number ' +
      'are kept, counted in `failed_rows` and explained in the report. `google-sheet`: spreadsheet `source_id`, `source_config.connection_id` ' +
      '(see /integrations) and optional `range`. `calendar`: an iCalendar feed (`source_config.ics_url` or `ics_text`); upcoming events with a ' +
      'phone number become contacts. With `source_refresh_minutes` those two are re-read on that period, adding new rows only. Without ' +
      '`scheduled_start_at` the campaign is a `draft` until started. `calling_window.days` are ISO weekdays (1 = Monday … 7 = Sunday). ' +
      CAMPAIGN_STATES_DESCRIPTION,
    tags: ['Campaigns'],
    request: { headers: CreateCampaignHeaders, body: CreateCampaignRequest },
    responses: {
      200: { description: 'Campaign', schema: Campaign },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  listCampaigns: defineRoute({
    operationId: 'listCampaigns',
    method: 'GET',
    path: '/campaigns',
    group: 'campaigns',
    summary: 'List campaigns, newest first',
    description: "The organization's campaigns, newest first, paginated, with their state and row counters.",
    tags: ['Campaigns'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: CampaignPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  getCampaign: defineRoute({
    operationId: 'getCampaign',
    method: 'GET',
    path: '/campaigns/{campaign_id}',
    group: 'campaigns',
    summary: 'Get a campaign',
    description:
      'One campaign with its state (`draft`, `scheduled`, `running`, `paused`, `completed`, `cancelled`) and counters (`total_rows`, `processed_rows`, `failed_rows`).',
    tags: ['Campaigns'],
    request: { params: CampaignIdParam },
    responses: { 200: { description: 'Campaign', schema: Campaign }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  startCampaign: transitionRoute(
    'start',
    'Start a campaign',
    'Dialing begins within seconds, inside the calling window.',
  ),
  pauseCampaign: transitionRoute(
    'pause',
    'Pause a campaign',
    'Suspends dispatch within seconds; calls in progress finish and their outcomes are recorded.',
  ),
  resumeCampaign: transitionRoute('resume', 'Resume a paused campaign', 'Continues exactly where it stopped.'),
  cancelCampaign: transitionRoute(
    'cancel',
    'Cancel a campaign',
    'No further calls; contacts not yet final stay as they are in the report.',
  ),
  campaignReport: defineRoute({
    operationId: 'getCampaignReport',
    method: 'GET',
    path: '/campaigns/{campaign_id}/report',
    group: 'campaigns',
    summary: 'Campaign report as JSON (one row per contact, paginated)',
    description:
      'One row per contact in row order: status, attempts, last outcome, call disposition, run id and the next attempt; the same rows as `report.csv`. ' +
      'A contact whose latest call was deleted keeps its status, attempts, outcome, run id and times; its disposition and analysis are null and `run_erased_at` says when.',
    tags: ['Campaigns'],
    request: { params: CampaignIdParam, query: PaginationQuery },
    responses: {
      200: { description: 'One page of rows', schema: ReportPage },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  campaignReportCsv: defineRoute({
    operationId: 'getCampaignReportCsv',
    method: 'GET',
    path: '/campaigns/{campaign_id}/report.csv',
    group: 'campaigns',
    summary: 'Campaign report as CSV (one row per contact)',
    description:
      'RFC 4180 with a header row: row, phone_number, first_name, last_name, status, attempts, last_outcome, call_disposition, run_id, last_attempt_at, ' +
      'next_attempt_at, error, analysis_summary, analysis_successful, analysis_data, run_erased_at. A contact whose latest call was deleted reads `erased` in the ' +
      'disposition and analysis cells. Reports over 5 MB answer 302 to a signed download link valid one hour (the stored file is deleted after a day).',
    tags: ['Campaigns'],
    request: { params: CampaignIdParam },
    responses: {
      200: { description: 'CSV', contentType: 'text/csv' },
      302: { description: 'Large report: signed link' },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
