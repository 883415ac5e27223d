/** Campaigns: the campaign item (its state, counters and source), its refresh schedule. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CampaignState } from '../domain/campaign-states.ts';
import type { CampaignRecord, ContactRecord } from '../domain/campaign-records.ts';
import { keys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';
import { recordOf, writeContacts } from './campaign-contacts.ts';

/** States an engine execution is working on (restarted after a local restart). */
const ACTIVE_STATES: readonly CampaignState[] = ['running', 'scheduled', 'importing'];

const campaignItem = (campaign: CampaignRecord) => ({
  ...keys.campaign(campaign.organization_id, campaign.id),
  ...(ACTIVE_STATES.includes(campaign.state) ? keys.activeCampaignIndex(campaign.organization_id, campaign.id) : {}),
  type: 'campaign',
  ...campaign,
});

const refreshItem = (orgId: number, campaignId: number, nextSyncAt: string) => ({
  ...keys.campaignRefresh(orgId, campaignId),
  ...keys.campaignRefreshIndex(orgId, campaignId, nextSyncAt),
  type: 'campaignRefresh',
  organization_id: orgId,
  campaign_id: campaignId,
  next_sync_at: nextSyncAt,
});

/**
 * Writes the contacts, then the campaign that counts them (and, for a refreshed source, its
 * refresh schedule entry): the campaign appears only once its contacts are all there.
 */
export async function insertCampaign(
  campaign: CampaignRecord,
  contacts: readonly ContactRecord[],
  nextSyncAt: string | null,
): Promise<void> {
  await writeContacts(campaign.organization_id, campaign.id, contacts);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: campaignItem(campaign),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  if (nextSyncAt)
    await db().send(
      new PutCommand({ TableName: tableName(), Item: refreshItem(campaign.organization_id, campaign.id, nextSyncAt) }),
    );
}

/** Adds contacts found by a source re-sync and counts them; records the sync. */
export async function appendContacts(
  orgId: number,
  campaignId: number,
  contacts: readonly ContactRecord[],
  syncedAt: string,
): Promise<void> {
  await writeContacts(orgId, campaignId, contacts);
  const invalid = contacts.filter((contact) => contact.status === 'invalid').length;
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.campaign(orgId, campaignId),
      UpdateExpression:
        'SET source_last_synced_at = :at, source_sync_error = :none ADD total_rows :added, processed_rows :invalid, failed_rows :invalid',
      ExpressionAttributeValues: { ':at': syncedAt, ':none': null, ':added': contacts.length, ':invalid': invalid },
    }),
  );
}

/** Records a background import's progress; false when the campaign is no longer importing from `from` (cancelled, or another step moved on). */
export async function recordImported(orgId: number, campaignId: number, from: number, to: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.campaign(orgId, campaignId),
        UpdateExpression: 'SET imported_rows = :to',
        ConditionExpression: '#state = :importing AND imported_rows = :from',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':importing': 'importing' },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function recordSyncError(orgId: number, campaignId: number, message: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.campaign(orgId, campaignId),
      UpdateExpression: 'SET source_sync_error = :message',
      ExpressionAttributeValues: { ':message': message },
    }),
  );
}

/** Campaign sources due for a re-sync at `now`. */
export async function dueRefreshes(
  now: string,
  limit: number,
): Promise<{ organizationId: number; campaignId: number }[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :now',
      ExpressionAttributeValues: { ':pk': 'CAMPAIGNS#REFRESH', ':now': `${now}#~` },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    organizationId: Number(item.organization_id),
    campaignId: Number(item.campaign_id),
  }));
}

export async function scheduleRefresh(orgId: number, campaignId: number, nextSyncAt: string | null): Promise<void> {
  if (nextSyncAt)
    await db().send(new PutCommand({ TableName: tableName(), Item: refreshItem(orgId, campaignId, nextSyncAt) }));
  else await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.campaignRefresh(orgId, campaignId) }));
}

export async function getCampaign(orgId: number, campaignId: number): Promise<CampaignRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.campaign(orgId, campaignId), ConsistentRead: true }),
  );
  return result.Item ? recordOf<CampaignRecord>(result.Item) : undefined;
}

const campaignsQuery = (orgId: number) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.campaignSkPrefix },
  ScanIndexForward: false,
});

/** Newest first. */
export async function listCampaigns(orgId: number, offset: number, limit: number) {
  const [totalCount, items] = await Promise.all([
    countQuery(campaignsQuery(orgId)),
    queryItems(campaignsQuery(orgId), offset, limit),
  ]);
  return { items: items.map((item) => recordOf<CampaignRecord>(item)), totalCount };
}

/** Running or scheduled campaigns of every organization (local restart reconciliation). */
export async function listActiveCampaigns(): Promise<{ organizationId: number; campaignId: number }[]> {
  const items = await queryItems({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': 'CAMPAIGNS#ACTIVE' },
  });
  return items.map((item) => ({ organizationId: Number(item.organization_id), campaignId: Number(item.id) }));
}

/**
 * Moves the campaign from one of `from` to `to` (with the given field changes); false when its
 * state was not one of `from` any more (a concurrent transition won).
 */
export async function transitionCampaign(
  orgId: number,
  campaignId: number,
  from: readonly CampaignState[],
  to: CampaignState,
  changes: Partial<Pick<CampaignRecord, 'started_at' | 'completed_at' | 'import_error' | 'definition_id'>> & {
    bumpGeneration?: boolean;
  } = {},
): Promise<CampaignRecord | undefined> {
  const { bumpGeneration, ...fields } = changes;
  const sets = ['#state = :to', ...Object.keys(fields).map((field, i) => `#f${i} = :v${i}`)];
  if (ACTIVE_STATES.includes(to)) sets.push('gsi1pk = :activePk, gsi1sk = :activeSk');
  const update = [`SET ${sets.join(', ')}`];
  if (bumpGeneration) update.push('ADD generation :one');
  if (!ACTIVE_STATES.includes(to)) update.push('REMOVE gsi1pk, gsi1sk');
  const active = keys.activeCampaignIndex(orgId, campaignId);
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.campaign(orgId, campaignId),
        UpdateExpression: update.join(' '),
        ConditionExpression: `#state IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: {
          '#state': 'state',
          ...Object.fromEntries(Object.keys(fields).map((field, i) => [`#f${i}`, field])),
        },
        ExpressionAttributeValues: {
          ':to': to,
          ...Object.fromEntries(from.map((state, i) => [`:from${i}`, state])),
          ...Object.fromEntries(Object.values(fields).map((value, i) => [`:v${i}`, value])),
          ...(ACTIVE_STATES.includes(to) ? { ':activePk': active.gsi1pk, ':activeSk': active.gsi1sk } : {}),
          ...(bumpGeneration ? { ':one': 1 } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return recordOf<CampaignRecord>(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
