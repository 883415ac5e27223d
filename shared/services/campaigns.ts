import { writeCsv } from './csv.ts';
import { nextCampaignState, type CampaignAction } from '../domain/campaign-states.ts';
import { DEFAULT_RETRY_POLICY } from '../domain/campaign-scheduling.ts';
import { SourceError, type SourceRow } from '../domain/contact-sources.ts';
import { BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError } from '../domain/errors.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import { RequestValidationError, type Loc } from '../http/validation-error.ts';
import type { CampaignRecord, ContactRecord } from '../domain/campaign-records.ts';
import * as repository from '../repositories/campaigns.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import { nextId } from '../repositories/counters.ts';
import { CAMPAIGN_REPORTS_PREFIX } from '../repositories/bucket-layout.ts';
import { putRunFile } from '../repositories/run-files.ts';
import type { Campaign, CreateCampaignRequest } from '../schemas/campaigns.ts';
import { getAgent } from './agents.ts';
import { startEngine, stopEngine } from './campaign-engine.ts';
import { nextSyncAt } from './campaign-refresh.ts';
import { newContacts, readSourceRows, refreshable } from './campaign-sources.ts';
import { createDownloadLink } from './download-links.ts';
import { emitCampaignState } from '../events/webhook-events.ts';
import { keyedIdempotent } from './idempotency-key.ts';

/** Contacts of one campaign at most, whatever the source. */
export const MAX_CAMPAIGN_CONTACTS = 100_000;
/** Size of `source_config.csv_text` at most (100,000 rows with names fit); larger: 413. */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
/**
 * Up to this many contacts are stored before the create request answers; a larger source is
 * stored in the background while the campaign is `importing`, so no request runs near the
 * 29 s API Gateway limit.
 */
export const SYNC_IMPORT_CONTACTS = 1_000;
const INLINE_REPORT_BYTES = 5 * 1024 * 1024;
const REPORT_LINK_SECONDS = 3600;

/** The Campaign response: the record with the agent's current name. */
async function present(campaign: CampaignRecord): Promise<Campaign> {
  const agent = await getAgent(campaign.organization_id, String(campaign.workflow_id)).catch(() => undefined);
  return {
    id: campaign.id,
    name: campaign.name,
    workflow_id: campaign.workflow_id,
    workflow_name: agent?.name ?? '',
    state: campaign.state,
    source_type: campaign.source_type,
    source_id: campaign.source_id,
    total_rows: campaign.total_rows,
    processed_rows: campaign.processed_rows,
    failed_rows: campaign.failed_rows,
    created_at: campaign.created_at,
    started_at: campaign.started_at,
    completed_at: campaign.completed_at,
    goal: campaign.goal,
    source_config: campaign.source_config && { ...campaign.source_config, csv_text: undefined },
    source_refresh_minutes: campaign.source_refresh_minutes,
    source_last_synced_at: campaign.source_last_synced_at,
    source_sync_error: campaign.source_sync_error,
    import_error: campaign.import_error ?? null,
    scheduled_start_at: campaign.scheduled_start_at,
    calling_window: campaign.calling_window,
    retry_config: campaign.retry_config,
  };
}

const importKey = (orgId: number, campaignId: number) => `campaign-imports/org-${orgId}/campaign-${campaignId}.json`;

/**
 * Creates a campaign, all or nothing: up to SYNC_IMPORT_CONTACTS contacts are written before the
 * campaign item (which appears only once they are all there); a larger source is kept in S3 and
 * the campaign is `importing` until the engine has stored it (then `draft` or `scheduled`).
 * With an `Idempotency-Key`, a retry returns the first campaign and creates nothing again.
 */
export const createCampaign = keyedIdempotent('campaigns', createCampaignNow);

async function createCampaignNow(orgId: number, request: CreateCampaignRequest): Promise<Campaign> {
  const csvText = request.source_type === 'csv' ? request.source_config?.csv_text : undefined;
  if (typeof csvText === 'string' && Buffer.byteLength(csvText) > MAX_CSV_BYTES) {
    throw new PayloadTooLargeError(
      `source_config.csv_text is limited to ${MAX_CSV_BYTES / 1024 / 1024} MB; split the list into several campaigns`,
    );
  }
  if (request.source_refresh_minutes != null && !refreshable(request)) {
    // Only a source that lives outside the request can change; one read from the request never would.
    const message = `source_refresh_minutes applies to sources read again (google-sheet, calendar with ics_url); a ${
      request.source_type === 'calendar' ? 'calendar given as ics_text' : request.source_type
    } source is read once, when the campaign is created`;
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'source_refresh_minutes'],
        msg: `Value error, ${message}`,
        input: request.source_refresh_minutes,
        ctx: { error: message },
      },
    ]);
  }
  const agent = await getAgent(orgId, String(request.workflow_id));
  const now = new Date();
  let rows: SourceRow[];
  try {
    rows = await readSourceRows(orgId, request, now);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    const loc: Loc = (
      {
        csv: ['body', 'source_config', 'csv_text'],
        'google-sheet': ['body', 'source_id'],
        calendar: ['body', 'source_config'],
      } as Record<string, Loc>
    )[request.source_type] ?? ['body'];
    throw new RequestValidationError([
      { type: 'value_error', loc, msg: `Value error, ${error.message}`, input: null, ctx: { error: error.message } },
    ]);
  }
  if (rows.length > MAX_CAMPAIGN_CONTACTS)
    throw new BadRequestError(`A campaign holds at most ${MAX_CAMPAIGN_CONTACTS} contacts`);
  const firstAttemptAt = request.scheduled_start_at
    ? new Date(request.scheduled_start_at).toISOString()
    : now.toISOString();
  const contacts = newContacts(rows, new Set(), 0, firstAttemptAt);
  const invalid = contacts.filter((contact) => contact.status === 'invalid').length;
  const background = contacts.length > SYNC_IMPORT_CONTACTS;
  const id = await nextId('campaign');
  const campaign: CampaignRecord = {
    id,
    organization_id: orgId,
    name: request.name,
    goal: request.goal ?? null,
    workflow_id: agent.id,
    state: background ? 'importing' : request.scheduled_start_at ? 'scheduled' : 'draft',
    source_type: request.source_type,
    source_id: request.source_id,
    // The CSV text is not kept in the item (it may approach DynamoDB's 400 KB item limit): the contacts are.
    source_config: request.source_config ? { ...request.source_config, csv_text: undefined } : null,
    source_refresh_minutes: request.source_refresh_minutes ?? null,
    source_last_synced_at: now.toISOString(),
    source_sync_error: null,
    retry_config: request.retry_config ?? { ...DEFAULT_RETRY_POLICY },
    calling_window: request.calling_window ?? null,
    scheduled_start_at: request.scheduled_start_at ? new Date(request.scheduled_start_at).toISOString() : null,
    total_rows: contacts.length,
    processed_rows: invalid,
    failed_rows: invalid,
    created_at: now.toISOString(),
    started_at: null,
    completed_at: null,
    generation: background || request.scheduled_start_at ? 1 : 0,
    ...(background ? { import_key: importKey(orgId, id), imported_rows: 0 } : {}),
  };
  const refreshEvery = request.source_refresh_minutes && refreshable(request) ? request.source_refresh_minutes : null;
  const nextSync = refreshEvery ? nextSyncAt(now, refreshEvery) : null;
  if (background) {
    await putRunFile(campaign.import_key!, JSON.stringify(contacts), 'application/json');
    await repository.insertCampaign(campaign, [], nextSync);
  } else {
    await repository.insertCampaign(campaign, contacts, nextSync);
  }
  if (campaign.state !== 'draft') await startEngine(campaign);
  return present(campaign);
}

async function findCampaign(orgId: number, campaignId: number): Promise<CampaignRecord> {
  const campaign = await repository.getCampaign(orgId, campaignId);
  if (!campaign) throw new NotFoundError('Campaign not found');
  return campaign;
}

export async function getCampaign(orgId: number, campaignId: number): Promise<Campaign> {
  return present(await findCampaign(orgId, campaignId));
}

export async function listCampaigns(orgId: number, page: PageRequest) {
  const { items, totalCount } = await repository.listCampaigns(orgId, pageOffset(page), page.limit);
  return { items: await Promise.all(items.map(present)), ...pageInfo(page, totalCount) };
}

/**
 * Applies a state transition (409 when the table does not allow it). Starting and resuming start
 * a new engine execution of a new generation; the older one, if still waiting, stops itself.
 * Pausing and cancelling stop dispatch at the engine's next step; calls in progress finish.
 */
export async function changeCampaignState(
  orgId: number,
  campaignId: number,
  action: CampaignAction,
): Promise<Campaign> {
  const current = await findCampaign(orgId, campaignId);
  const to = nextCampaignState(current.state, action);
  const starts = action === 'start' || action === 'resume';
  // The first start pins the agent's current definition version for every call of the campaign.
  const firstStart = starts && !current.started_at;
  const pinned = firstStart ? (await getAgent(orgId, String(current.workflow_id))).current_definition_id : undefined;
  const updated = await repository.transitionCampaign(orgId, campaignId, [current.state], to, {
    bumpGeneration: starts,
    ...(firstStart ? { started_at: new Date().toISOString(), definition_id: pinned } : {}),
  });
  if (!updated) throw new ConflictError('The campaign changed meanwhile; fetch it and retry');
  if (starts) await startEngine(updated);
  else await stopEngine(current);
  await emitCampaignState(updated);
  return present(updated);
}

const REPORT_COLUMNS = [
  'row',
  'phone_number',
  'first_name',
  'last_name',
  'status',
  'attempts',
  'last_outcome',
  'call_disposition',
  'run_id',
  'last_attempt_at',
  'next_attempt_at',
  'error',
  'analysis_summary',
  'analysis_successful',
  'analysis_data',
  'run_erased_at',
] as const;

/** The contact's latest run's post-call analysis, if that run has one yet. */
const contactAnalysis = (contact: ContactRecord) =>
  contact.analysis && contact.analysis.run_id === contact.run_id ? contact.analysis : null;

/** When the contact's latest call (`run_id`) was deleted: its disposition and analysis were erased with it. */
const runErasedAt = (contact: ContactRecord) =>
  contact.erased_run_id !== undefined && contact.erased_run_id === contact.run_id ? (contact.erased_at ?? null) : null;

const reportRow = (contact: ContactRecord) => ({
  row: contact.row,
  phone_number: contact.e164 ?? contact.phone_number,
  first_name: contact.first_name,
  last_name: contact.last_name,
  status: contact.status,
  attempts: contact.attempts,
  last_outcome: contact.last_outcome,
  call_disposition: contact.call_disposition,
  run_id: contact.run_id,
  next_attempt_at: contact.next_attempt_at,
  last_attempt_at: contact.last_attempt_at,
  error: contact.error,
  analysis_summary: contactAnalysis(contact)?.summary ?? null,
  analysis_successful: contactAnalysis(contact)?.successful ?? null,
  analysis_data: contactAnalysis(contact)?.structured_data ?? null,
  run_erased_at: runErasedAt(contact),
});

/** The CSV says `erased` where the erased call's content was, rather than an empty cell (never had one). */
const ERASED = 'erased';
const csvRow = (contact: ContactRecord) => {
  const row = reportRow(contact);
  if (row.run_erased_at === null) return row;
  return {
    ...row,
    call_disposition: ERASED,
    analysis_summary: ERASED,
    analysis_successful: ERASED,
    analysis_data: ERASED,
  };
};

export async function reportPage(orgId: number, campaignId: number, page: PageRequest) {
  await findCampaign(orgId, campaignId);
  const { items, totalCount } = await contactStore.listContacts(orgId, campaignId, pageOffset(page), page.limit);
  return { items: items.map(reportRow), ...pageInfo(page, totalCount) };
}

export type CsvReport = { kind: 'inline'; csv: string } | { kind: 'link'; url: string };

/**
 * The report as CSV (services/csv.ts: spreadsheet-safe), one row per contact, built a table page at a time.
 * Beyond 5 MB it is stored in S3 and answered with a signed link instead.
 */
export async function reportCsv(orgId: number, campaignId: number, baseUrl: string): Promise<CsvReport> {
  await findCampaign(orgId, campaignId);
  const parts = [await writeCsv([], REPORT_COLUMNS, { header: true })];
  for await (const contacts of contactStore.allContacts(orgId, campaignId))
    parts.push(await writeCsv(contacts.map(csvRow), REPORT_COLUMNS, { header: false }));
  const csv = parts.join('');
  if (Buffer.byteLength(csv) <= INLINE_REPORT_BYTES) return { kind: 'inline', csv };
  const key = `${CAMPAIGN_REPORTS_PREFIX}org-${orgId}/campaign-${campaignId}/report-${Date.now()}.csv`;
  await putRunFile(key, csv, 'text/csv; charset=utf-8');
  return {
    kind: 'link',
    url: (await createDownloadLink(baseUrl, key, 'text/csv; charset=utf-8', REPORT_LINK_SECONDS)).url,
  };
}
