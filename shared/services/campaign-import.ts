import type { CampaignRecord, ContactRecord } from '../domain/campaign-records.ts';
import * as repository from '../repositories/campaigns.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import { deleteRunFiles, readRunFileText } from '../repositories/run-files.ts';

/** The stored source of an import cannot be read: retrying cannot help. */
export class ImportFailedError extends Error {}

/** A background import stores this many contacts between two progress records. */
const IMPORT_CHUNK = 5_000;

/**
 * Stores the next contacts of an `importing` campaign (the engine calls it until it answers
 * true), recording progress after each chunk so that a retried or restarted step resumes there;
 * rewriting a chunk after a crash writes the same items again. When done, the campaign becomes
 * `draft`, or `scheduled` when it has a start time, and the S3 copy is deleted.
 */
export async function importContacts(campaign: CampaignRecord, budgetMs: number): Promise<boolean> {
  const started = Date.now();
  const contacts = storedContacts(await readRunFileText(campaign.import_key!));
  let imported = campaign.imported_rows ?? 0;
  while (imported < contacts.length) {
    if (Date.now() - started > budgetMs) return false;
    const chunk = contacts.slice(imported, imported + IMPORT_CHUNK);
    await contactStore.writeContacts(campaign.organization_id, campaign.id, chunk);
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

/** The contacts the create request validated and stored; a missing or damaged copy fails the import. */
function storedContacts(text: string | undefined): ContactRecord[] {
  if (text === undefined) throw new ImportFailedError('The stored contacts of the import are missing');
  let contacts: unknown;
  try {
    contacts = JSON.parse(text);
  } catch {
    throw new ImportFailedError('The stored contacts of the import are damaged (not JSON)');
  }
  if (!Array.isArray(contacts))
    throw new ImportFailedError('The stored contacts of the import are damaged (not a list)');
  return contacts as ContactRecord[];
}

/**
 * Ends an import that cannot finish: the campaign becomes `import_failed` with the reason (the
 * contacts stored so far stay, inert: such a campaign never dials) and its S3 copy is deleted.
 */
export async function failImport(campaign: CampaignRecord, error: ImportFailedError): Promise<void> {
  const failed = await repository.transitionCampaign(
    campaign.organization_id,
    campaign.id,
    ['importing'],
    'import_failed',
    {
      import_error: error.message,
    },
  );
  if (failed) await deleteRunFiles([campaign.import_key!]);
}
