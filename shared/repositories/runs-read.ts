/** Reading runs: by key, an agent's list (filtered), and the index views (active runs, the event outbox). */
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';
import type { RunRecord, RunStatus } from '../domain/run.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { unpackLatency, type StoredLatency } from './run-latency.ts';

const fromItem = (item: Record<string, unknown>): RunRecord => {
  const { type: _type, ...run } = stripKeys(item);
  const latency = run.latency ? unpackLatency(run.latency as StoredLatency) : null;
  return { ...run, logs: run.logs ?? [], latency } as unknown as RunRecord;
};

/** Several runs by key, 100 per BatchGetItem (eventually consistent: for reconciliation, not for decisions that need the latest write). */
export async function getRuns(refs: readonly RunRef[]): Promise<RunRecord[]> {
  const table = tableName();
  const found: RunRecord[] = [];
  for (let i = 0; i < refs.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = refs
      .slice(i, i + 100)
      .map((ref) => keys.run(ref.organizationId, ref.agentId, ref.runId));
    while (pending?.length) {
      const result: BatchGetCommandOutput = await db().send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }),
      );
      found.push(...(result.Responses?.[table] ?? []).map((item) => fromItem(item)));
      pending = result.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return found;
}

export async function getRun(orgId: number, agentId: number, runId: number): Promise<RunRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.run(orgId, agentId, runId), ConsistentRead: true }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

/** What a run list may be narrowed to (all optional, combined with AND). */
export interface RunFilters {
  status?: RunStatus;
  disposition?: string;
  createdFrom?: string;
  createdTo?: string;
  search?: string;
  /** false: no test conversation (services/agent-test-runner.ts); absent: any. */
  tests?: false;
}

/**
 * The DynamoDB filter for `filters`, or nothing when there is none. Times are compared as UTC ISO
 * strings (how `created_at` is stored), so an offset in the request is normalized first.
 */
export function runFilterExpression(filters: RunFilters): {
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filters.status !== undefined) {
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = filters.status;
  }
  if (filters.disposition !== undefined) {
    conditions.push('gathered_context.call_disposition = :disposition');
    values[':disposition'] = filters.disposition;
  }
  if (filters.createdFrom !== undefined) {
    conditions.push('created_at >= :createdFrom');
    values[':createdFrom'] = new Date(filters.createdFrom).toISOString();
  }
  if (filters.createdTo !== undefined) {
    conditions.push('created_at < :createdTo');
    values[':createdTo'] = new Date(filters.createdTo).toISOString();
  }
  if (filters.search !== undefined) {
    conditions.push('(contains(#name, :search) OR contains(phone_number, :search))');
    names['#name'] = 'name';
    values[':search'] = filters.search;
  }
  if (filters.tests === false) {
    conditions.push('attribute_not_exists(#test)');
    names['#test'] = 'test';
  }
  if (conditions.length === 0) return { ExpressionAttributeValues: {} };
  // DynamoDB refuses an empty ExpressionAttributeNames.
  return {
    FilterExpression: conditions.join(' AND '),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

/** An agent's conversations leave out its test runs' (listed with their test run instead). */
const runsQuery = (orgId: number, agentId: number, filters: RunFilters = {}) => {
  const filter = runFilterExpression({ ...filters, tests: false });
  return {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ...filter,
    ExpressionAttributeValues: {
      ':pk': keys.runPartition(orgId, agentId),
      ':prefix': keys.runSkPrefix,
      ...filter.ExpressionAttributeValues,
    },
    ScanIndexForward: false,
  };
};

/** An agent's runs, newest first, those matching `filters` only. */
export async function listRuns(
  orgId: number,
  agentId: number,
  offset: number,
  limit: number,
  filters: RunFilters = {},
): Promise<{ items: RunRecord[]; totalCount: number }> {
  const [totalCount, items] = await Promise.all([
    countQuery(runsQuery(orgId, agentId, filters)),
    queryItems(runsQuery(orgId, agentId, filters), offset, limit),
  ]);
  return { items: items.map(fromItem), totalCount };
}

/** The run reference an incoming provider call was claimed for (a retried voice webhook). */
export async function inboundCallRunRef(provider: string, callId: string): Promise<string | undefined> {
  const claim = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.inboundCall(provider, callId), ConsistentRead: true }),
  );
  return claim.Item ? String(claim.Item.run_ref) : undefined;
}

/** Runs under one gsi1 key with a sort key before `before`, oldest first. */
async function runsIndexedBefore(gsi1pk: string, before: string, limit: number): Promise<RunRecord[]> {
  const items = await queryItems(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':before': before },
    },
    0,
    limit,
  );
  return items.map(fromItem);
}

/** Ended runs whose `call.completed` was not confirmed published before `before` (the outbox). */
export const listRunsWithPendingEvents = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.pendingEventIndex('', 0, 0, 0).gsi1pk, before, limit);

/** In-progress runs started before `before`, oldest first (the sweeper's view). */
export const listActiveRunsStartedBefore = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.activeRunIndex('', 0, 0, 0).gsi1pk, before, limit);

/** Browser/chat sessions never connected whose credential expired before `before`, oldest first (the sweeper's view). */
export const listUnconnectedSessionsExpiredBefore = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.unconnectedSessionIndex('', 0, 0, 0).gsi1pk, before, limit);
