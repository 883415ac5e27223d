/**
 * A campaign's contacts: one item each in the campaign's partition, in the due and dialing indexes
 * while they wait or are called; their outcomes counted on the campaign item in the same transaction.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ContactAnalysis, ContactRecord, ContactStatus } from '../domain/campaign-records.ts';
import { keys, stripKeys } from './keys.ts';
import { AlongsideRefusedError } from './runs-lifecycle.ts';
import { countQuery, db, queryItems, queryPages, sendTransaction, tableName, type TransactItem } from './table.ts';

const DUE_STATUSES: readonly ContactStatus[] = ['pending', 'retry_scheduled'];

/** An item as its record: without the table's keys and type. */
export const recordOf = <T>(item: Record<string, unknown>): T => {
  const { type: _type, ...rest } = stripKeys(item);
  return rest as T;
};

const contactItem = (orgId: number, campaignId: number, contact: ContactRecord) => ({
  ...keys.contact(orgId, campaignId, contact.row),
  ...(DUE_STATUSES.includes(contact.status)
    ? keys.dueContactIndex(orgId, campaignId, contact.next_attempt_at!, contact.row)
    : {}),
  ...(contact.status === 'dialing' ? keys.dialingContactIndex(orgId, campaignId, contact.row) : {}),
  type: 'campaignContact',
  ...contact,
});

/** Batches written at once when storing contacts. */
const WRITE_PARALLELISM = 8;

/** Writes contacts 25 per batch, several batches at a time, retrying unprocessed items. */
export async function writeContacts(
  orgId: number,
  campaignId: number,
  contacts: readonly ContactRecord[],
): Promise<void> {
  const table = tableName();
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < contacts.length; i += 25) {
    batches.push(
      contacts.slice(i, i + 25).map((contact) => ({ PutRequest: { Item: contactItem(orgId, campaignId, contact) } })),
    );
  }
  const writeBatch = async (batch: Record<string, unknown>[]) => {
    let pending: Record<string, unknown>[] | undefined = batch;
    while (pending?.length) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
      pending = result.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
    }
  };
  for (let i = 0; i < batches.length; i += WRITE_PARALLELISM)
    await Promise.all(batches.slice(i, i + WRITE_PARALLELISM).map(writeBatch));
}

/** Contacts due at or before `now`, soonest first. */
export async function dueContacts(
  orgId: number,
  campaignId: number,
  now: string,
  limit: number,
): Promise<ContactRecord[]> {
  const index = keys.dueContactIndex(orgId, campaignId, now, 99_999_999);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :upTo',
      ExpressionAttributeValues: { ':pk': index.gsi1pk, ':upTo': index.gsi1sk },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => recordOf<ContactRecord>(item));
}

/** When the next contact falls due, or null when none waits. */
export async function nextDueAt(orgId: number, campaignId: number): Promise<string | null> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.dueContactIndex(orgId, campaignId, '', 0).gsi1pk },
      Limit: 1,
    }),
  );
  const item = result.Items?.[0];
  return item ? String(item.next_attempt_at) : null;
}

/** Contacts whose call is under way. */
export async function dialingContacts(orgId: number, campaignId: number): Promise<ContactRecord[]> {
  const items = await queryItems({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.dialingContactIndex(orgId, campaignId, 0).gsi1pk },
  });
  return items.map((item) => recordOf<ContactRecord>(item));
}

export async function getContact(orgId: number, campaignId: number, row: number): Promise<ContactRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.contact(orgId, campaignId, row), ConsistentRead: true }),
  );
  return result.Item ? recordOf<ContactRecord>(result.Item) : undefined;
}

const contactsQuery = (orgId: number, campaignId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.contactPartition(orgId, campaignId), ':prefix': keys.contactSkPrefix },
});

export async function listContacts(orgId: number, campaignId: number, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(contactsQuery(orgId, campaignId)),
    queryItems(contactsQuery(orgId, campaignId), offset, limit),
  ]);
  return { items: items.map((item) => recordOf<ContactRecord>(item)), totalCount };
}

/** Every contact in row order, a page of the table at a time (report streaming). */
export async function* allContacts(orgId: number, campaignId: number): AsyncGenerator<ContactRecord[]> {
  for await (const items of queryPages(contactsQuery(orgId, campaignId)))
    yield items.map((item) => recordOf<ContactRecord>(item));
}

type ContactChange = Partial<
  Omit<ContactRecord, 'row' | 'phone_number' | 'first_name' | 'last_name' | 'timezone' | 'e164'>
>;

/**
 * One conditional update of a contact. `expect` pins the status set and attempt count the caller
 * read, so two workers can never both act on the same attempt (the exactly-once guarantee of
 * dialing). The index entry follows the new status: DUE with its time, DIALING, or none.
 */
function contactUpdate(
  orgId: number,
  campaignId: number,
  row: number,
  expect: { statuses: readonly ContactStatus[]; attempts: number },
  change: ContactChange,
) {
  const status = change.status;
  const fields = Object.entries(change);
  const sets = fields.map((_, i) => `#f${i} = :v${i}`);
  const values: Record<string, unknown> = Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value]));
  let remove = '';
  if (status && DUE_STATUSES.includes(status)) {
    const index = keys.dueContactIndex(orgId, campaignId, change.next_attempt_at!, row);
    sets.push('gsi1pk = :gpk, gsi1sk = :gsk');
    Object.assign(values, { ':gpk': index.gsi1pk, ':gsk': index.gsi1sk });
  } else if (status === 'dialing') {
    const index = keys.dialingContactIndex(orgId, campaignId, row);
    sets.push('gsi1pk = :gpk, gsi1sk = :gsk');
    Object.assign(values, { ':gpk': index.gsi1pk, ':gsk': index.gsi1sk });
  } else if (status) {
    remove = ' REMOVE gsi1pk, gsi1sk';
  }
  return {
    TableName: tableName(),
    Key: keys.contact(orgId, campaignId, row),
    UpdateExpression: `SET ${sets.join(', ')}${remove}`,
    ConditionExpression: `#status IN (${expect.statuses.map((_, i) => `:s${i}`).join(', ')}) AND attempts = :expectedAttempts`,
    ExpressionAttributeNames: {
      '#status': 'status',
      ...Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
    },
    ExpressionAttributeValues: {
      ...values,
      ...Object.fromEntries(expect.statuses.map((value, i) => [`:s${i}`, value])),
      ':expectedAttempts': expect.attempts,
    },
  };
}

/**
 * The claim of a due contact's next attempt, as an item of the transaction that creates its run:
 * the contact is dialing with that run, or (someone else claimed it) nothing is written.
 */
export function contactClaimItem(
  orgId: number,
  campaignId: number,
  contact: ContactRecord,
  runId: number,
  now: string,
): TransactItem {
  return {
    Update: contactUpdate(
      orgId,
      campaignId,
      contact.row,
      { statuses: DUE_STATUSES, attempts: contact.attempts },
      {
        status: 'dialing',
        attempts: contact.attempts + 1,
        last_attempt_at: now,
        next_attempt_at: null,
        run_id: runId,
      },
    ),
  };
}

/** A transaction item that holds only while the campaign is running (a pause or cancel stops dispatch at once). */
export function campaignRunningCheck(orgId: number, campaignId: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.campaign(orgId, campaignId),
      ConditionExpression: '#state = :running',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':running': 'running' },
    },
  };
}

/** Do-not-call entries and number claims among `numbers`, in BatchGetItem requests of 100 keys. */
export async function screenNumbers(
  orgId: number,
  numbers: readonly string[],
): Promise<{ blocked: Set<string>; claimedBy: Map<string, { organizationId: number; numberId: number }> }> {
  const table = tableName();
  const wanted = [...new Set(numbers)].flatMap((e164) => [keys.doNotCall(orgId, e164), keys.numberClaim(e164)]);
  const blocked = new Set<string>();
  const claimedBy = new Map<string, { organizationId: number; numberId: number }>();
  for (let i = 0; i < wanted.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = wanted.slice(i, i + 100);
    while (pending?.length) {
      const result: BatchGetCommandOutput = await db().send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }),
      );
      for (const item of result.Responses?.[table] ?? []) {
        const sk = String(item.sk);
        if (sk.startsWith(keys.doNotCallSkPrefix)) blocked.add(sk.slice(keys.doNotCallSkPrefix.length));
        else
          claimedBy.set(String(item.pk).replace(/^PHONENUMBER#/, ''), {
            organizationId: Number(item.organization_id),
            numberId: Number(item.phone_number_id),
          });
      }
      pending = result.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return { blocked, claimedBy };
}

/** Applies a contact change; false when the contact was not in the expected state (someone else acted). */
export async function updateContact(
  orgId: number,
  campaignId: number,
  row: number,
  expect: { statuses: readonly ContactStatus[]; attempts: number },
  change: ContactChange,
): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(contactUpdate(orgId, campaignId, row, expect, change)));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Notes a run's post-call analysis on its contact, whatever the contact's state since (the analysis
 * comes after the outcome); false when the contact has moved on to another run (or is gone).
 */
export async function recordContactAnalysis(
  orgId: number,
  campaignId: number,
  row: number,
  analysis: ContactAnalysis,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contact(orgId, campaignId, row),
        UpdateExpression: 'SET analysis = :analysis',
        // Not once the run is erased: an analysis finishing as its run is deleted is not kept here.
        ConditionExpression: 'run_id = :runId AND (attribute_not_exists(erased_run_id) OR erased_run_id <> :runId)',
        ExpressionAttributeValues: { ':analysis': analysis, ':runId': analysis.run_id },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * The transaction item erasing a run's content from its contact (domain/contact-erasure.ts),
 * written with the run's deletion. It holds only while the contact is as it was read (same status,
 * attempts, latest run and analysed run), so a call outcome or an analysis written meanwhile makes
 * the deletion read the contact again.
 */
export function contactErasureItem(
  orgId: number,
  campaignId: number,
  seen: ContactRecord,
  erase: { runId: number; disposition: boolean; analysis: boolean; at: string },
): TransactItem {
  const sets = erase.disposition ? ['call_disposition = :null', 'erased_run_id = :runId', 'erased_at = :at'] : [];
  const seenAnalysisRun = seen.analysis?.run_id;
  return {
    Update: {
      TableName: tableName(),
      Key: keys.contact(orgId, campaignId, seen.row),
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', erase.analysis ? 'REMOVE analysis' : '']
        .filter(Boolean)
        .join(' '),
      ConditionExpression:
        '#status = :status AND attempts = :attempts AND ' +
        (seen.run_id === null ? '(attribute_not_exists(run_id) OR run_id = :null)' : 'run_id = :seenRun') +
        (seenAnalysisRun === undefined
          ? ' AND attribute_not_exists(analysis.run_id)'
          : ' AND analysis.run_id = :analysisRun'),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': seen.status,
        ':attempts': seen.attempts,
        ...(erase.disposition ? { ':runId': erase.runId, ':at': erase.at } : {}),
        ...(erase.disposition || seen.run_id === null ? { ':null': null } : {}),
        ...(seen.run_id === null ? {} : { ':seenRun': seen.run_id }),
        ...(seenAnalysisRun === undefined ? {} : { ':analysisRun': seenAnalysisRun }),
      },
    },
  };
}

/** What happens to a contact: a final status (counted in the campaign) or its next attempt's time. */
export interface ContactOutcome {
  row: number;
  /** The state the contact must still be in (`dialing` with the call's attempt count, for a call's outcome). */
  expect: { statuses: readonly ContactStatus[]; attempts: number };
  change: ContactChange;
  /** Set when the outcome is final: counted as processed, and as failed when `failed`. */
  final?: { failed: boolean };
}

/** The campaign's counters for a final outcome; with `whileRunning`, only while the campaign runs. */
function campaignCountersItem(orgId: number, campaignId: number, failed: boolean, whileRunning: boolean): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.campaign(orgId, campaignId),
      UpdateExpression: 'ADD processed_rows :one, failed_rows :failed',
      ...(whileRunning
        ? {
            ConditionExpression: '#state = :running',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':one': 1, ':failed': failed ? 1 : 0, ':running': 'running' },
          }
        : { ExpressionAttributeValues: { ':one': 1, ':failed': failed ? 1 : 0 } }),
    },
  };
}

/**
 * The transaction items of a call's outcome, with the items that must hold with it. Written in the
 * refill's claim transaction, the campaign item both counts a final outcome and checks the campaign
 * still runs (one transaction may name an item once); written alone, it only counts.
 */
export function contactOutcomeItems(
  orgId: number,
  campaignId: number,
  outcome: ContactOutcome,
  options: { withClaim: boolean },
): { contact: TransactItem; campaign: TransactItem | undefined } {
  const contact: TransactItem = {
    Update: contactUpdate(orgId, campaignId, outcome.row, outcome.expect, outcome.change),
  };
  const campaign = outcome.final
    ? campaignCountersItem(orgId, campaignId, outcome.final.failed, options.withClaim)
    : options.withClaim
      ? campaignRunningCheck(orgId, campaignId)
      : undefined;
  return { contact, campaign };
}

/**
 * Applies a contact outcome on its own (no contact claimed with it), with `alongside` items (a run's
 * event confirmation; AlongsideRefusedError when one is refused); false when the contact had already moved on (someone else acted, or a
 * repeated report). A final outcome's counters are exact because a contact is finished only once.
 */
export async function applyContactOutcome(
  orgId: number,
  campaignId: number,
  outcome: ContactOutcome,
  alongside: TransactItem[] = [],
): Promise<boolean> {
  const { contact, campaign } = contactOutcomeItems(orgId, campaignId, outcome, { withClaim: false });
  const own = campaign ? [contact, campaign] : [contact];
  try {
    await sendTransaction([...own, ...alongside]);
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const refused = (index: number) => error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';
    if (refused(0)) return false;
    const alongsideRefused = alongside.findIndex((_, i) => refused(own.length + i));
    if (alongsideRefused >= 0) throw new AlongsideRefusedError(alongsideRefused);
    throw error;
  }
}

/** Gives a contact its final status and counts it in the campaign (processed, and failed when `failed`). */
export const finishContact = (
  orgId: number,
  campaignId: number,
  row: number,
  expect: { statuses: readonly ContactStatus[]; attempts: number },
  change: ContactChange,
  failed: boolean,
): Promise<boolean> => applyContactOutcome(orgId, campaignId, { row, expect, change, final: { failed } });

export const contactCount = (orgId: number, campaignId: number) => countQuery(contactsQuery(orgId, campaignId));
