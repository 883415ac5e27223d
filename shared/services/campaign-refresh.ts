import { SourceError } from '../domain/contact-sources.ts';
import { DomainError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import { logger } from '../observability/logger.ts';
import type { ContactRecord } from '../domain/campaign-records.ts';
import * as repository from '../repositories/campaigns.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import { startEngine } from './campaign-engine.ts';
import { newContacts, readSourceRows } from './campaign-sources.ts';
import { positiveNumberSetting } from '../config/settings.ts';

/** Local speed-up of refresh intervals (1 on AWS), as for retry delays. */
const timeScale = () => positiveNumberSetting('CAMPAIGN_TIME_SCALE', 1);
/** Sources re-synced per scheduled run at most; the rest wait for the next run. */
const SYNC_BATCH = 20;

export const nextSyncAt = (now: Date, refreshMinutes: number): string =>
  new Date(now.getTime() + (refreshMinutes * 60_000) / timeScale()).toISOString();

function describe(error: unknown): string {
  if (error instanceof RequestValidationError)
    return error.items.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
  if (error instanceof DomainError) return String(error.detail);
  return (error as Error).message;
}

/**
 * Re-reads a campaign's source and adds the rows it has not seen (by number); rows already there
 * are never changed or removed. A completed campaign that gains contacts runs again. A failing
 * source leaves the contacts as they are and records `source_sync_error`.
 */
export async function syncCampaignSource(orgId: number, campaignId: number, now = new Date()): Promise<number> {
  const campaign = await repository.getCampaign(orgId, campaignId);
  if (!campaign || campaign.state === 'cancelled' || !campaign.source_refresh_minutes) {
    await repository.scheduleRefresh(orgId, campaignId, null);
    return 0;
  }
  await repository.scheduleRefresh(orgId, campaignId, nextSyncAt(now, campaign.source_refresh_minutes));
  let added: ContactRecord[];
  try {
    const rows = await readSourceRows(orgId, campaign, now);
    const known = new Set<string>();
    for await (const contacts of contactStore.allContacts(orgId, campaignId))
      for (const contact of contacts) known.add(contact.e164 ?? contact.phone_number.trim());
    added = newContacts(rows, known, campaign.total_rows, now.toISOString());
  } catch (error) {
    if (!(error instanceof SourceError || error instanceof DomainError || error instanceof RequestValidationError))
      throw error;
    await repository.recordSyncError(orgId, campaignId, describe(error));
    return 0;
  }
  await repository.appendContacts(orgId, campaignId, added, now.toISOString());
  if (added.some((contact) => contact.status === 'pending') && campaign.state === 'completed') {
    const reopened = await repository.transitionCampaign(orgId, campaignId, ['completed'], 'running', {
      bumpGeneration: true,
      completed_at: null,
    });
    if (reopened) await startEngine(reopened);
  }
  return added.length;
}

/** The scheduled job: every source due for a re-sync. */
export async function syncDueSources(now = new Date()): Promise<number> {
  const due = await repository.dueRefreshes(now.toISOString(), SYNC_BATCH);
  for (const { organizationId, campaignId } of due) {
    try {
      const added = await syncCampaignSource(organizationId, campaignId, now);
      logger.info('Campaign source synced', { organizationId, campaignId, added });
    } catch (error) {
      logger.error('Campaign source sync failed', { organizationId, campaignId, error: error as Error });
    }
  }
  return due.length;
}
