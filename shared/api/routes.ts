import { z } from 'zod';
import { ErrorResponse } from '../schemas/common.ts';
import { Agent, AgentIdParam, AgentSummary, CreateAgentRequest, ListAgentsQuery, UpdateAgentRequest } from '../schemas/agents.ts';
import { AddDoNotCallRequest, DoNotCallEntry, DoNotCallNumberParam, DoNotCallPage } from '../schemas/do-not-call.ts';
import { PaginationQuery } from '../schemas/pagination.ts';
import {
  CallInitiationResponse,
  ConversationIdParams,
  ConversationRecord,
  CreateConversationRequest,
  IdempotencyKeyHeader,
  LegacyWorkflowIdParam,
  PlaceCallRequest,
  RecordingQuery,
  RecordingResponse,
  Run,
  RunPage,
  TranscriptResponse,
} from '../schemas/runs.ts';
import { DownloadTokenParam, TelephonyStatusCallback } from '../schemas/telephony.ts';
import { Campaign, CampaignIdParam, CampaignPage, CreateCampaignHeaders, CreateCampaignRequest, ReportPage } from '../schemas/campaigns.ts';
import { Connection, ConnectionIdParam, ConnectionList, CreateConnectionRequest, PickerToken } from '../schemas/integrations.ts';
import { CreateTriggerRequest, Trigger, TriggerIdParam, TriggerPage } from '../schemas/triggers.ts';
import { CreatedWebhook, CreateWebhookRequest, DeliveryPage, WebhookIdParam, WebhookList } from '../schemas/webhooks.ts';
import { BAD_REQUEST, CALL_PLACEMENT_ERRORS, NOT_FOUND, UNAUTHORIZED, VALIDATION } from './common-responses.ts';
import { defineRoute, type Route } from './route.ts';

const PAGE_HEADERS = {
  'X-Total-Count': { description: 'Agents matching the filter', schema: { type: 'integer' as const } },
  'X-Total-Pages': { description: 'Pages of `limit` agents', schema: { type: 'integer' as const } },
};

export const agentRoutes = {
  listAgents: defineRoute({
    operationId: 'listAgents',
    method: 'GET',
    path: '/agents',
    group: 'agents',
    summary: 'List agents',
    description: 'Every agent of the organization, oldest first, filtered by `status`. Pass `page`/`limit` to page through them.',
    tags: ['Agents'],
    request: { query: ListAgentsQuery },
    responses: { 200: { description: 'Agents', schema: z.array(Agent), headers: PAGE_HEADERS }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  createAgent: defineRoute({
    operationId: 'createAgent',
    method: 'POST',
    path: '/agents',
    group: 'agents',
    summary: 'Create an agent',
    tags: ['Agents'],
    request: { body: CreateAgentRequest },
    responses: { 201: { description: 'Created', schema: Agent }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  agentSummary: defineRoute({
    operationId: 'getAgentSummary',
    method: 'GET',
    path: '/agents/summary',
    group: 'agents',
    summary: 'Counts of agents and runs',
    tags: ['Agents'],
    request: {},
    responses: { 200: { description: 'Summary', schema: AgentSummary }, ...UNAUTHORIZED },
  }),
  getAgent: defineRoute({
    operationId: 'getAgent',
    method: 'GET',
    path: '/agents/{agent_id}',
    group: 'agents',
    summary: 'Get an agent',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  updateAgent: defineRoute({
    operationId: 'updateAgent',
    method: 'PATCH',
    path: '/agents/{agent_id}',
    group: 'agents',
    summary: 'Update an agent',
    description: 'Only the fields sent change. A new `workflow_definition` becomes a new definition version.',
    tags: ['Agents'],
    request: { params: AgentIdParam, body: UpdateAgentRequest },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  archiveAgent: defineRoute({
    operationId: 'archiveAgent',
    method: 'POST',
    path: '/agents/{agent_id}/archive',
    group: 'agents',
    summary: 'Archive an agent',
    description: 'Idempotent: archiving an archived agent returns it unchanged.',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  unarchiveAgent: defineRoute({
    operationId: 'unarchiveAgent',
    method: 'POST',
    path: '/agents/{agent_id}/unarchive',
    group: 'agents',
    summary: 'Unarchive an agent',
    description: 'Idempotent: unarchiving an active agent returns it unchanged.',
    tags: ['Agents'],
    request: { params: AgentIdParam },
    responses: { 200: { description: 'Agent', schema: Agent }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

const PLACE_CALL_DESCRIPTION =
  'Checks, in this order: the number is valid E.164 (422); it is not on the Do not call list (403, `detail` starts with `do_not_call`); ' +
  'it is 08:00-21:00 in every time zone the number may be in (409, `detail.retry_at` and `Retry-After`); an outbound channel is free ' +
  '(429 with `Retry-After`). The run exists at once, in progress, with `duration_seconds: null`. Send `Idempotency-Key` to retry safely.';

export const callRoutes = {
  placeCall: defineRoute({
    operationId: 'placeCall',
    method: 'POST',
    path: '/agents/{agent_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call',
    description: PLACE_CALL_DESCRIPTION,
    tags: ['Calls'],
    request: { params: AgentIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  placeCallLegacy: defineRoute({
    operationId: 'placeCallLegacy',
    method: 'POST',
    path: '/workflow/{workflow_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call (earlier address)',
    description: `Same as \`POST /agents/{agent_id}/calls\` with the agent's integer id; kept for existing integrations. ${PLACE_CALL_DESCRIPTION}`,
    tags: ['Calls'],
    request: { params: LegacyWorkflowIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  placeTriggerCall: defineRoute({
    operationId: 'placeTriggerCall',
    method: 'POST',
    path: '/triggers/{trigger_id}/calls',
    group: 'calls',
    summary: 'Place an outbound call through an API trigger',
    description: `Calls with the trigger's agent. Body and response as \`POST /agents/{agent_id}/calls\`. ${PLACE_CALL_DESCRIPTION}`,
    tags: ['Calls'],
    request: { params: TriggerIdParam, headers: IdempotencyKeyHeader, body: PlaceCallRequest },
    responses: { 200: { description: 'Call initiated', schema: CallInitiationResponse }, ...UNAUTHORIZED, ...CALL_PLACEMENT_ERRORS, ...NOT_FOUND, ...VALIDATION },
  }),
  telephonyStatus: defineRoute({
    operationId: 'telephonyStatusCallback',
    method: 'POST',
    path: '/telephony/status',
    group: 'telephonyCallbacks',
    public: true,
    internal: true,
    summary: 'Call status callback of the telephony provider (signed with X-Telephony-Signature)',
    tags: ['Telephony'],
    request: { body: TelephonyStatusCallback },
    responses: { 204: { description: 'Accepted' }, 403: { description: 'Bad signature' } },
  }),
};

export const conversationRoutes = {
  createConversation: defineRoute({
    operationId: 'createConversation',
    method: 'POST',
    path: '/agents/{agent_id}/conversations',
    group: 'conversations',
    summary: 'Create a conversation record (browser voice or chat); never dials',
    description: '`initial_context` is merged over the agent\'s `template_context_variables`. Telephony mode names are accepted and only create a record.',
    tags: ['Conversations'],
    request: { params: AgentIdParam, body: CreateConversationRequest },
    responses: { 201: { description: 'Created', schema: ConversationRecord }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listConversations: defineRoute({
    operationId: 'listConversations',
    method: 'GET',
    path: '/agents/{agent_id}/conversations',
    group: 'conversations',
    summary: 'List an agent\'s runs, newest first',
    tags: ['Conversations'],
    request: { params: AgentIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: RunPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getConversation: defineRoute({
    operationId: 'getConversation',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}',
    group: 'conversations',
    summary: 'Get one run, with fresh download links',
    description: 'Links need no API key and expire 1 hour after this request (`download_urls_expire_at`); fetch the run again for new ones.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: { 200: { description: 'Run', schema: Run }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteConversation: defineRoute({
    operationId: 'deleteConversation',
    method: 'DELETE',
    path: '/agents/{agent_id}/conversations/{conversation_id}',
    group: 'conversations',
    summary: 'Delete a run irreversibly',
    description:
      'Removes the recording, transcript, contexts, logs, SMS and webhook delivery records; links already issued stop working. ' +
      'Duration and cost stay in the billing record. 409 while the call is in progress. Payloads already delivered are not recalled.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Call in progress', schema: ErrorResponse }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getTranscript: defineRoute({
    operationId: 'getTranscript',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}/transcript',
    group: 'conversations',
    summary: 'Transcript of a run',
    description: 'Consecutive fragments of one speaker are merged into one segment. 404 while the call is in progress or after retention.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: { 200: { description: 'Transcript', schema: TranscriptResponse }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getRecording: defineRoute({
    operationId: 'getRecording',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}/recording',
    group: 'conversations',
    summary: 'Signed link to a run\'s WAV recording',
    description: '404 while the call is in progress or after retention.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams, query: RecordingQuery },
    responses: { 200: { description: 'Recording', schema: RecordingResponse }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  download: defineRoute({
    operationId: 'downloadFile',
    method: 'GET',
    path: '/downloads/{token}',
    group: 'downloads',
    public: true,
    summary: 'Follow a signed download link',
    description: 'The link itself is the credential: no API key. Redirects (302) to the file for a minute; 403 when the link is expired or altered, 404 when the file was deleted.',
    tags: ['Conversations'],
    request: { params: DownloadTokenParam },
    responses: { 302: { description: 'Redirect to the file' }, 403: { description: 'Expired or invalid link', schema: ErrorResponse }, 404: { description: 'File deleted', schema: ErrorResponse } },
  }),
};

const WEBHOOK_DESCRIPTION =
  'Events are POSTed as JSON `{type, timestamp, data}` and signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, ' +
  '`webhook-signature` = `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the `whsec_` secret). Non-2xx answers and timeouts (10 s) ' +
  'are retried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (±10 % jitter, `Retry-After` honoured); ' +
  '410 Gone disables the endpoint. Every retry of one event keeps its `webhook-id`.';

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
    responses: { 200: { description: 'Campaign', schema: Campaign }, 409: { description: 'Transition not allowed', schema: ErrorResponse }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
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
    responses: { 200: { description: 'Campaign', schema: Campaign }, ...BAD_REQUEST, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listCampaigns: defineRoute({
    operationId: 'listCampaigns',
    method: 'GET',
    path: '/campaigns',
    group: 'campaigns',
    summary: 'List campaigns, newest first',
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
    tags: ['Campaigns'],
    request: { params: CampaignIdParam },
    responses: { 200: { description: 'Campaign', schema: Campaign }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  startCampaign: transitionRoute('start', 'Start a campaign', 'Dialing begins within seconds, inside the calling window.'),
  pauseCampaign: transitionRoute('pause', 'Pause a campaign', 'Suspends dispatch within seconds; calls in progress finish and their outcomes are recorded.'),
  resumeCampaign: transitionRoute('resume', 'Resume a paused campaign', 'Continues exactly where it stopped.'),
  cancelCampaign: transitionRoute('cancel', 'Cancel a campaign', 'No further calls; contacts not yet final stay as they are in the report.'),
  campaignReport: defineRoute({
    operationId: 'getCampaignReport',
    method: 'GET',
    path: '/campaigns/{campaign_id}/report',
    group: 'campaigns',
    summary: 'Campaign report as JSON (one row per contact, paginated)',
    tags: ['Campaigns'],
    request: { params: CampaignIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page of rows', schema: ReportPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  campaignReportCsv: defineRoute({
    operationId: 'getCampaignReportCsv',
    method: 'GET',
    path: '/campaigns/{campaign_id}/report.csv',
    group: 'campaigns',
    summary: 'Campaign report as CSV (one row per contact)',
    description:
      'RFC 4180 with a header row: row, phone_number, first_name, last_name, status, attempts, last_outcome, call_disposition, run_id, last_attempt_at, ' +
      'next_attempt_at, error. Reports over 5 MB answer 302 to a signed download link valid one hour.',
    tags: ['Campaigns'],
    request: { params: CampaignIdParam },
    responses: { 200: { description: 'CSV', contentType: 'text/csv' }, 302: { description: 'Large report: signed link' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const integrationRoutes = {
  createConnection: defineRoute({
    operationId: 'createConnection',
    method: 'POST',
    path: '/integrations',
    group: 'integrations',
    summary: 'Connect a hosted-spreadsheet account (OAuth)',
    description:
      'Exchanges the authorization code of the provider\'s consent screen for a refresh token, stored encrypted (KMS) and never returned. ' +
      'The connection feeds `google-sheet` campaign sources and the file-picker token.',
    tags: ['Integrations'],
    request: { body: CreateConnectionRequest },
    responses: { 201: { description: 'Connected', schema: Connection }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  listConnections: defineRoute({
    operationId: 'listConnections',
    method: 'GET',
    path: '/integrations',
    group: 'integrations',
    summary: 'List integration connections',
    tags: ['Integrations'],
    request: {},
    responses: { 200: { description: 'Connections', schema: ConnectionList }, ...UNAUTHORIZED },
  }),
  deleteConnection: defineRoute({
    operationId: 'deleteConnection',
    method: 'DELETE',
    path: '/integrations/{connection_id}',
    group: 'integrations',
    summary: 'Delete a connection (its stored token goes with it)',
    tags: ['Integrations'],
    request: { params: ConnectionIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  pickerToken: defineRoute({
    operationId: 'getSheetsPickerToken',
    method: 'POST',
    path: '/integrations/{connection_id}/sheets/picker-token',
    group: 'integrations',
    summary: 'Short-lived access token for the spreadsheet file picker',
    description: 'Valid up to one hour; the refresh token never leaves the server.',
    tags: ['Integrations'],
    request: { params: ConnectionIdParam },
    responses: { 200: { description: 'Token', schema: PickerToken }, ...BAD_REQUEST, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const triggerRoutes = {
  createTrigger: defineRoute({
    operationId: 'createTrigger',
    method: 'POST',
    path: '/triggers',
    group: 'triggers',
    summary: 'Create an API trigger for an agent',
    tags: ['Triggers'],
    request: { body: CreateTriggerRequest },
    responses: { 201: { description: 'Created', schema: Trigger }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listTriggers: defineRoute({
    operationId: 'listTriggers',
    method: 'GET',
    path: '/triggers',
    group: 'triggers',
    summary: 'List API triggers',
    tags: ['Triggers'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: TriggerPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  getTrigger: defineRoute({
    operationId: 'getTrigger',
    method: 'GET',
    path: '/triggers/{trigger_id}',
    group: 'triggers',
    summary: 'Get an API trigger',
    tags: ['Triggers'],
    request: { params: TriggerIdParam },
    responses: { 200: { description: 'Trigger', schema: Trigger }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteTrigger: defineRoute({
    operationId: 'deleteTrigger',
    method: 'DELETE',
    path: '/triggers/{trigger_id}',
    group: 'triggers',
    summary: 'Delete an API trigger',
    tags: ['Triggers'],
    request: { params: TriggerIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const webhookRoutes = {
  createWebhook: defineRoute({
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'Subscribe an endpoint to events',
    description: `${WEBHOOK_DESCRIPTION} URLs that resolve to private, loopback or link-local addresses are refused (400).`,
    tags: ['Webhooks'],
    request: { body: CreateWebhookRequest },
    responses: { 201: { description: 'Created; the secret is shown only here', schema: CreatedWebhook }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  listWebhooks: defineRoute({
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    group: 'webhooks',
    summary: 'List webhook endpoints',
    tags: ['Webhooks'],
    request: {},
    responses: { 200: { description: 'Webhooks', schema: WebhookList }, ...UNAUTHORIZED },
  }),
  deleteWebhook: defineRoute({
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}',
    group: 'webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'Pending retries to it stop.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam },
    responses: { 204: { description: 'Deleted' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  listDeliveries: defineRoute({
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{webhook_id}/deliveries',
    group: 'webhooks',
    summary: 'Deliveries to a webhook, newest first',
    description: 'Each with its attempts (time, status code or error) and the next retry.',
    tags: ['Webhooks'],
    request: { params: WebhookIdParam, query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: DeliveryPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const doNotCallRoutes = {
  addDoNotCall: defineRoute({
    operationId: 'addDoNotCallNumber',
    method: 'POST',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'Add a number to the do-not-call list',
    description:
      'The number is normalised to E.164 first. Calls to listed numbers are refused with 403 and campaigns skip them. ' +
      'Adding a listed number again is not an error: it answers 200 with the existing entry.',
    tags: ['Do not call'],
    request: { body: AddDoNotCallRequest },
    responses: {
      201: { description: 'Added', schema: DoNotCallEntry },
      200: { description: 'Already on the list', schema: DoNotCallEntry },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  listDoNotCall: defineRoute({
    operationId: 'listDoNotCallNumbers',
    method: 'GET',
    path: '/do-not-call',
    group: 'doNotCall',
    summary: 'List the do-not-call numbers',
    description: 'In E.164 order.',
    tags: ['Do not call'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page', schema: DoNotCallPage }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  removeDoNotCall: defineRoute({
    operationId: 'removeDoNotCallNumber',
    method: 'DELETE',
    path: '/do-not-call/{phone_number}',
    group: 'doNotCall',
    summary: 'Remove a number from the do-not-call list',
    description: 'The number in the path may be written in any form `POST` accepts (URL-encode the `+` as `%2B` if your client turns `+` into a space).',
    tags: ['Do not call'],
    request: { params: DoNotCallNumberParam },
    responses: { 204: { description: 'Removed' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
};

export const docsRoutes = {
  openapiDocument: defineRoute({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/public-openapi.json',
    group: 'docs',
    public: true,
    summary: 'OpenAPI 3.1 description of this API',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'OpenAPI document', contentType: 'application/json' } },
  }),
  docsPage: defineRoute({
    operationId: 'getDocsPage',
    method: 'GET',
    path: '/public-docs',
    group: 'docs',
    public: true,
    summary: 'Interactive API reference',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  }),
  docsAsset: defineRoute({
    operationId: 'getDocsAsset',
    method: 'GET',
    path: '/public-docs/{asset}',
    group: 'docs',
    public: true,
    summary: 'Static asset of the reference page',
    tags: ['Documentation'],
    request: { params: z.object({ asset: z.string() }) },
    responses: { 200: { description: 'Asset' }, 404: { description: 'No such asset' } },
  }),
};

/** The route table: every endpoint of the API. */
export const ROUTES: Route[] = [
  ...Object.values(agentRoutes),
  ...Object.values(callRoutes),
  ...Object.values(conversationRoutes),
  ...Object.values(campaignRoutes),
  ...Object.values(integrationRoutes),
  ...Object.values(triggerRoutes),
  ...Object.values(webhookRoutes),
  ...Object.values(doNotCallRoutes),
  ...Object.values(docsRoutes),
] as Route[];
