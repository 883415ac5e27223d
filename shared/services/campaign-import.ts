import * as repository from '../repositories/campaigns.ts';
import { deleteRunFiles, readRunFileText } from '../repositories/run-files.ts';

/** A background import stores this many contacts between two progress records. */
const IMPORT_CHUNK = 5_000;

/**
 * Stores the next contacts of an `importing` campaign (the engine calls it until it answers
 * true), recording progress after each chunk so that a retried or restarted step resumes there;
 * rewriting a chunk after a crash writes the same items again. When done, the campaign becomes
 * `draft`, or `scheduled` when it has a start time, and the S3 copy is deleted.
 */
export async function importContacts(campaign: repository.CampaignRecord, budgetMs: number): Promise<boolean> {
  const started = Date.now();
  const text = await readRunFileText(campaign.import_key!);
  if (text === undefined) throw new Error(`Campaign ${campaign.id}: its import ${campaign.import_key} is missing`);
  const contacts = JSON.parse(text) as repository.ContactRecord[];
  let imported = campaign.imported_rows ?? 0;
  while (imported < contacts.length) {
    if (Date.now() - started > budgetMs) return false;
    const chunk = contacts.slice(imported, imported + IMPORT_CHUNK);
    await repository.writeContacts(campaign.organization_id, campaign.id, chunk);
    if (!(await repository.recordImported(campaign.organization_id, campaign.id, imported, imported + chunk.length)))
      return true;
    imported += chunk.length;
  }
  const finished = await repository.transitionCampaign(
    campaign.organization_id,
    campaign.id,
    ['importing'],
    campaign.scheduled_start_at ? 'scheduled' : 'draft',
  );
  if (finished) await deleteRunFiles([campaign.import_key!]);
  return true;
}
