import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { CALLS_IDEMPOTENCY_SCOPE, keys, stripKeys } from './keys.ts';
import { appendRunLog, runLogItem, type RunLogLine } from './run-logs.ts';
import { countQuery, db, queryItems, sendTransaction, tableName, type TransactItem } from './table.ts';
import type { MachineVerdict } from '../domain/answering-machine.ts';
import { hasSession, sessionExpiresAt } from '../domain/browser-sessions.ts';
import type { RunRef } from '../domain/run-ref.ts';
import type { CallAnalysisPlan, RunAnalysis } from '../schemas/call-analysis.ts';

export type RunStatus = 'created' | 'in_progress' | 'completed' | 'busy' | 'no_answer' | 'voicemail' | 'failed';

/** A run (call or conversation) as stored; the API shapes are built from it by the service. */
export interface RunRecord {
  id: number;
  organization_id: number;
  workflow_id: number;
  name: string;
  mode: string;
  status: RunStatus;
  phone_number: string | null;
  from_number: string | null;
  created_at: string;
  ended_at: string | null;
  definition_id: number;
  duration_seconds: number | null;
  initial_context: Record<string, unknown>;
  gathered_context: Record<string, unknown>;
  recording_key: string | null;
  transcript_key: string | null;
  /**
   * Given at creation: its lines are written as log items (run-logs.ts), never on the item. Read
   * back from an item: the lines a run written before log items kept on itself (run-logs reads both).
   */
  logs: RunLogLine[];
  sms: { timestamp: string; to: string; body: string }[];
  cost: { currency: 'USD'; telephony_usd: number; platform_usd: number; total_usd: number } | null;
  provider_call_id: string | null;
  /** When the callee picked up and the media stream started; the duration counts from here. */
  answered_at: string | null;
  /** `host:port` of the media task holding the call while it is live (its listeners and control commands go there). */
  media_host?: string | null;
  /** The provider's answering-machine verdict on an outbound call, once it came (the first one stays). */
  answered_by?: MachineVerdict | null;
  /** The agent's voicemail message when the call was placed (left on an answering machine); none: hang up on one. */
  voicemail_message?: string | null;
  /** The agent's post-call analysis plan when the run started; none: no analysis. */
  analysis_plan?: CallAnalysisPlan | null;
  /** The post-call analysis, from the run's end (pending) until the model answered (or failed). */
  analysis?: RunAnalysis | null;
  /**
   * When its `call.completed` was confirmed on the bus while its analysis was still pending: the
   * run then stays in the outbox index until the analysis is recorded, so an analysis whose
   * function failed every attempt is noticed (services/call-completion.ts).
   */
  event_published_at?: string | null;
  /** A transfer to a person, from the agent's request until the run ends (services/call-transfer.ts). */
  transfer?: TransferState | null;
  /** The campaign contact attempt that placed this call, if any. */
  campaign: CampaignOrigin | null;
  /** Sort key of the Idempotency-Key record holding this call's first response, if placed with a key. */
  idempotency_record?: string;
}

export type TransferOutcome = 'completed' | 'busy' | 'no_answer' | 'voicemail' | 'failed' | 'abandoned';

export interface TransferState {
  destination: string;
  address: string;
  mode: 'cold' | 'warm';
  requested_at: string;
  /** Warm: what the person answering hears first. */
  whisper: string | null;
  /** Said to the caller when the destination does not take the call (unless the agent takes it back). */
  failed_message: string;
  /** Not taken: the agent takes the call back on a new media stream of the run. */
  continue_on_failure?: boolean;
  /** When the agent's new stream started, after a transfer not taken. */
  resumed_at?: string;
  /** The transfer leg was answered (by a person; a machine sets `machine`). */
  answered_at?: string | null;
  machine?: boolean;
  outcome?: TransferOutcome;
  /** Seconds the transfer leg was up (answered to hang-up). */
  leg_seconds?: number;
  /** When the transferred call ended (the run ends then). */
  ended_at?: string;
  /** What the agent's part left, once saved: the run ends with it when the transfer's outcome is known. */
  handoff?: {
    recording_key: string | null;
    transcript_key: string;
    gathered_context: Record<string, unknown>;
    agent_ended_at: string;
  };
}

export interface CampaignOrigin {
  campaign_id: number;
  row: number;
  attempt: number;
  /** The contact's own time zone, when its source gave one (its retry is scheduled in it). */
  timezone?: string | null;
}

/** What deciding a campaign call's outcome needs of its run. */
export type EndedCall = Pick<
  RunRecord,
  | 'id'
  | 'organization_id'
  | 'workflow_id'
  | 'status'
  | 'phone_number'
  | 'created_at'
  | 'ended_at'
  | 'gathered_context'
  | 'campaign'
  | 'analysis'
>;

/** What survives a run's deletion: the billing record. */
export interface UsageRecord {
  run_id: number;
  workflow_id: number;
  status: RunStatus;
  started_at: string;
  ended_at: string;
  duration_seconds: number;
  cost_usd: number;
}

const fromItem = (item: Record<string, unknown>): RunRecord => {
  const { type: _type, ...run } = stripKeys(item);
  return { ...run, logs: run.logs ?? [] } as unknown as RunRecord;
};

const refOf = (run: RunRecord): RunRef => ({
  organizationId: run.organization_id,
  agentId: run.workflow_id,
  runId: run.id,
});

const cancelledBy = (error: unknown, index: number): boolean =>
  error instanceof TransactionCanceledException &&
  error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

/** A write of `insertRun`'s `alongside` items was refused by its condition: nothing was written. */
export class AlongsideRefusedError extends Error {
  constructor(readonly index: number) {
    super(`Transaction item ${index} written alongside the run was refused by its condition`);
  }
}

/** The agent's item was missing or, for a batch placement that did not read it, not active. */
export class AgentUnavailableError extends Error {}

/**
 * Creates a run and bumps the agent's run count. A call also takes one of the organization's
 * outbound channels, in the same transaction: the conditional increment makes two concurrent
 * requests unable to take the same last channel. Returns false when no channel is free.
 * `alongside` items (a campaign contact's claim) are written in the same transaction; with them
 * the agent must be active, checked by the transaction instead of a read.
 */
export async function insertRun(
  run: RunRecord,
  takesChannel: boolean,
  alongside: TransactItem[] = [],
): Promise<boolean> {
  const table = tableName();
  const orgId = run.organization_id;
  const checksAgent = alongside.length > 0;
  const { logs, ...stored } = run;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: keys.agent(orgId, run.workflow_id),
        UpdateExpression: 'ADD total_runs :one',
        ConditionExpression: checksAgent ? 'attribute_exists(pk) AND #status = :active' : 'attribute_exists(pk)',
        ...(checksAgent ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ExpressionAttributeValues: { ':one': 1, ...(checksAgent ? { ':active': 'active' } : {}) },
      },
    },
    {
      Put: {
        TableName: table,
        Item: {
          ...keys.run(orgId, run.workflow_id, run.id),
          ...(run.status === 'in_progress' ? keys.activeRunIndex(run.created_at, orgId, run.workflow_id, run.id) : {}),
          // A browser/chat session waits for its connection; never connected, the sweeper ends it.
          ...(run.status === 'created' && hasSession(run.mode)
            ? keys.unconnectedSessionIndex(sessionExpiresAt(run.created_at), orgId, run.workflow_id, run.id)
            : {}),
          type: 'run',
          ...stored,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...logs.map((line) => runLogItem(refOf(run), line)),
  ];
  if (takesChannel) {
    items.unshift({
      Update: {
        TableName: table,
        Key: keys.organization(orgId),
        UpdateExpression: 'SET active_calls = if_not_exists(active_calls, :zero) + :one',
        ConditionExpression: 'attribute_not_exists(active_calls) OR active_calls < maxConcurrentCalls',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      },
    });
  }
  const first = items.length;
  items.push(...alongside);
  try {
    await sendTransaction(items);
    return true;
  } catch (error) {
    if (takesChannel && cancelledBy(error, 0)) return false;
    if (checksAgent && cancelledBy(error, takesChannel ? 1 : 0))
      throw new AgentUnavailableError('The agent is missing or archived');
    const refused = alongside.findIndex((_, i) => cancelledBy(error, first + i));
    if (refused >= 0) throw new AlongsideRefusedError(refused);
    throw error;
  }
}

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
  if (conditions.length === 0) return { ExpressionAttributeValues: {} };
  // DynamoDB refuses an empty ExpressionAttributeNames.
  return {
    FilterExpression: conditions.join(' AND '),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

const runsQuery = (orgId: number, agentId: number, filters: RunFilters = {}) => {
  const filter = runFilterExpression(filters);
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

/** What ending a call sets on its run; the log line is written with it. */
export type RunEnding = Pick<
  RunRecord,
  | 'status'
  | 'ended_at'
  | 'duration_seconds'
  | 'gathered_context'
  | 'recording_key'
  | 'transcript_key'
  | 'cost'
  | 'analysis'
> & { log: RunLogLine };

/**
 * Ends a run in progress, releases its channel and writes its billing record, in one transaction.
 * Only the ending's fields change (what a call noted meanwhile, such as its provider id or a log
 * line, stays); false when the run is no longer in progress. `from: 'created'` ends a browser/chat
 * session that never connected instead (it holds no channel); false once it has connected.
 */
export async function finishRun(
  ref: RunRef,
  ending: RunEnding,
  usage: UsageRecord,
  verdictRead?: MachineVerdict | null,
  from: 'in_progress' | 'created' = 'in_progress',
): Promise<boolean> {
  const table = tableName();
  const { log, ...changes } = ending;
  const names = Object.fromEntries(Object.keys(changes).map((field, i) => [`#f${i}`, field]));
  const values = Object.fromEntries(Object.values(changes).map((value, i) => [`:v${i}`, value]));
  const pendingEvent = keys.pendingEventIndex(usage.ended_at, ref.organizationId, ref.agentId, ref.runId);
  try {
    await sendTransaction([
      {
        Update: {
          TableName: table,
          Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
          // The index entry moves from "active" to "event pending" until call.completed is published.
          UpdateExpression: `SET ${Object.keys(names)
            .map((name, i) => `${name} = :v${i}`)
            .join(', ')}, gsi1pk = :eventPk, gsi1sk = :eventSk`,
          // The outcome was decided from the answering-machine verdict read: it must still be the run's.
          ConditionExpression: `#status = :from AND ${
            verdictRead ? 'answered_by = :verdict' : '(attribute_not_exists(answered_by) OR answered_by = :null)'
          }`,
          ExpressionAttributeNames: { ...names, '#status': 'status' },
          ExpressionAttributeValues: {
            ...values,
            ...(verdictRead ? { ':verdict': verdictRead } : { ':null': null }),
            ':from': from,
            ':eventPk': pendingEvent.gsi1pk,
            ':eventSk': pendingEvent.gsi1sk,
          },
        },
      },
      ...(from === 'in_progress'
        ? [
            {
              Update: {
                TableName: table,
                Key: keys.organization(ref.organizationId),
                UpdateExpression: 'SET active_calls = active_calls - :one',
                ConditionExpression: 'active_calls > :zero',
                ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
              },
            },
          ]
        : []),
      {
        Put: {
          TableName: table,
          Item: { ...keys.usage(ref.organizationId, usage.ended_at, ref.runId), type: 'usage', ...usage },
        },
      },
      runLogItem(ref, log),
    ]);
    return true;
  } catch (error) {
    if (cancelledBy(error, 0)) return false;
    throw error;
  }
}

/**
 * The run's `call.completed` is on the bus: its outbox index entry goes, unless its analysis is
 * still pending; then the entry stays, noted as published, until the analysis is recorded.
 */
export async function markEventPublished(ref: RunRef, now = new Date()): Promise<void> {
  const key = keys.run(ref.organizationId, ref.agentId, ref.runId);
  const pendingEvent = keys.pendingEventIndex('', 0, 0, 0).gsi1pk;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
        ConditionExpression:
          'gsi1pk = :pending AND (attribute_not_exists(analysis.#status) OR analysis.#status <> :analyzing)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': pendingEvent, ':analyzing': 'pending' },
      }),
    );
    return;
  } catch (error) {
    // Already confirmed (by the outbox or a concurrent report), deleted meanwhile, or analyzing.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET event_published_at = if_not_exists(event_published_at, :now)',
        ConditionExpression: 'gsi1pk = :pending AND analysis.#status = :analyzing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': pendingEvent, ':analyzing': 'pending', ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The confirmation of an ended run's `call.completed`, as an item of a transaction its consumer
 * writes anyway (a campaign call's outcome): the event reached the bus, since it was consumed.
 * A run whose analysis is pending keeps its outbox entry, noted as published (markEventPublished).
 * Refused only when the run was deleted meanwhile.
 */
export function eventConfirmationItem(ref: RunRef, analysisPending: boolean, now = new Date()): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
      ...(analysisPending
        ? {
            UpdateExpression: 'SET event_published_at = if_not_exists(event_published_at, :now)',
            ExpressionAttributeValues: { ':now': now.toISOString() },
          }
        : { UpdateExpression: 'REMOVE gsi1pk, gsi1sk' }),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

/** Ended runs whose `call.completed` was not confirmed published before `before` (the outbox). */
export const listRunsWithPendingEvents = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.pendingEventIndex('', 0, 0, 0).gsi1pk, before, limit);

type RunUpdate = Pick<
  UpdateCommandInput,
  'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
> & { UpdateExpression: string };

/**
 * A conditional update of a run and the log line that records it, in one transaction (without a
 * line, one UpdateItem); false when the run's condition failed, and nothing is written then.
 */
async function updateRunWithLog(ref: RunRef, update: RunUpdate, log?: RunLogLine): Promise<boolean> {
  const Key = keys.run(ref.organizationId, ref.agentId, ref.runId);
  try {
    if (log) await sendTransaction([{ Update: { TableName: tableName(), Key, ...update } }, runLogItem(ref, log)]);
    else await db().send(new UpdateCommand({ TableName: tableName(), Key, ...update }));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || cancelledBy(error, 0)) return false;
    throw error;
  }
}

/** updateRunWithLog, then the run as it is now (read consistently), or undefined when refused. */
async function updateRunReturning(ref: RunRef, update: RunUpdate, log?: RunLogLine): Promise<RunRecord | undefined> {
  if (!(await updateRunWithLog(ref, update, log))) return undefined;
  return getRun(ref.organizationId, ref.agentId, ref.runId);
}

/**
 * The agent takes a call back after a transfer nobody took (continue_on_failure): the new media
 * stream of the run, admitted once; the run as it is then, or undefined when it cannot be resumed.
 */
export async function resumeMediaStream(ref: RunRef, at: string, mediaHost: string): Promise<RunRecord | undefined> {
  return updateRunReturning(
    ref,
    {
      UpdateExpression: 'SET transfer.resumed_at = :at, media_host = :host',
      ConditionExpression:
        '#status = :inProgress AND transfer.continue_on_failure = :true AND attribute_exists(transfer.outcome) AND transfer.outcome <> :completed AND attribute_not_exists(transfer.resumed_at)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':at': at,
        ':host': mediaHost,
        ':inProgress': 'in_progress',
        ':true': true,
        ':completed': 'completed',
      },
    },
    { timestamp: at, level: 'INFO', message: 'The agent takes the call back' },
  );
}

/** A transfer starts; false when the run is not in progress, or is being transferred already. */
export async function beginTransfer(ref: RunRef, transfer: TransferState, log: RunLogLine): Promise<boolean> {
  return updateRunWithLog(
    ref,
    {
      UpdateExpression: 'SET transfer = :transfer',
      ConditionExpression: '#status = :inProgress AND (attribute_not_exists(transfer) OR transfer = :null)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':transfer': transfer, ':inProgress': 'in_progress', ':null': null },
    },
    log,
  );
}

/**
 * Notes what happened to a transfer in progress (only the given fields change); the run as it is
 * then, or undefined when it has ended (or has no transfer).
 */
export async function noteTransfer(
  ref: RunRef,
  changes: Partial<TransferState>,
  log?: RunLogLine,
): Promise<RunRecord | undefined> {
  const fields = Object.entries(changes);
  return updateRunReturning(
    ref,
    {
      UpdateExpression: `SET ${fields.map((_, i) => `transfer.#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: '#status = :inProgress AND attribute_type(transfer, :map)',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
        ':inProgress': 'in_progress',
        ':map': 'M',
      },
    },
    log,
  );
}

/**
 * Records the outcome of a pending post-call analysis; false when it is no longer pending (another
 * attempt recorded it first) or the run is gone.
 */
export async function recordAnalysis(ref: RunRef, analysis: RunAnalysis): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
        UpdateExpression: 'SET analysis = :analysis',
        ConditionExpression: 'analysis.#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':analysis': analysis, ':pending': 'pending' },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
  await releaseAnalyzedRun(ref);
  return true;
}

/**
 * The outbox entry a pending analysis kept goes once the analysis is recorded; an entry whose
 * event was not confirmed yet stays for its confirmation (which removes it then).
 */
export async function releaseAnalyzedRun(ref: RunRef): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk, event_published_at',
        ConditionExpression: 'gsi1pk = :pending AND attribute_exists(event_published_at)',
        ExpressionAttributeValues: { ':pending': keys.pendingEventIndex('', 0, 0, 0).gsi1pk },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Records a fact about a call still in progress; false when the run has ended (or is gone). */
export async function updateActiveRun(
  ref: RunRef,
  changes: Partial<Pick<RunRecord, 'provider_call_id' | 'answered_at'>>,
  log?: RunLogLine,
): Promise<boolean> {
  const fields = Object.entries(changes);
  if (fields.length === 0) return log ? appendRunLog(ref, log) : true;
  return updateRunWithLog(
    ref,
    {
      UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: '#status = :inProgress',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
      },
      ExpressionAttributeValues: {
        ':inProgress': 'in_progress',
        ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
      },
    },
    log,
  );
}

/**
 * Records the provider's answering-machine verdict on a call in progress, once: the run as it is
 * now, or undefined when a verdict was already recorded or the run has ended (a late verdict never
 * rewrites an ending; see domain/answering-machine.ts).
 */
export async function recordMachineVerdict(
  ref: RunRef,
  verdict: MachineVerdict,
  log: RunLogLine,
): Promise<RunRecord | undefined> {
  return updateRunReturning(
    ref,
    {
      UpdateExpression: 'SET answered_by = :verdict',
      ConditionExpression: '#status = :inProgress AND (attribute_not_exists(answered_by) OR answered_by = :null)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':inProgress': 'in_progress', ':verdict': verdict, ':null': null },
    },
    log,
  );
}

/** The claim of an incoming provider call, made in the run's transaction: one run per call. */
export function inboundCallClaimItem(provider: string, callId: string, runRef: string): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...keys.inboundCall(provider, callId), type: 'inboundCall', run_ref: runRef },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The run reference an incoming provider call was claimed for (a retried voice webhook). */
export async function inboundCallRunRef(provider: string, callId: string): Promise<string | undefined> {
  const claim = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.inboundCall(provider, callId), ConsistentRead: true }),
  );
  return claim.Item ? String(claim.Item.run_ref) : undefined;
}

/**
 * Admits a run's media stream: the first stream of a run still waiting for its media marks it
 * answered, and gets the run as written (the call needs it, so it is not read again). Undefined
 * when the run has ended, is gone, or already has its stream (one per run).
 */
export async function claimMediaStream(
  ref: RunRef,
  answeredAt: string,
  mediaHost: string,
): Promise<RunRecord | undefined> {
  return updateRunReturning(
    ref,
    {
      UpdateExpression: 'SET answered_at = :at, media_host = :host',
      ConditionExpression:
        '#status = :inProgress AND (attribute_not_exists(answered_at) OR attribute_type(answered_at, :null))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':inProgress': 'in_progress',
        ':at': answeredAt,
        ':host': mediaHost,
        ':null': 'NULL',
      },
    },
    { timestamp: answeredAt, level: 'INFO', message: 'Call answered' },
  );
}

/**
 * A browser or chat session connects: its run (created, of a session mode, never started) starts
 * now, taking one of the organization's channels like a call, and joins the active runs the
 * stuck-run sweeper watches. `at_limit` when the organization has no channel free; undefined when
 * the run cannot start (unknown, not a session, started before: a credential used twice).
 */
export async function startSession(
  ref: RunRef,
  modes: readonly string[],
  startedAt: string,
  mediaHost: string,
): Promise<RunRecord | 'at_limit' | undefined> {
  const table = tableName();
  const active = keys.activeRunIndex(startedAt, ref.organizationId, ref.agentId, ref.runId);
  const modeValues = Object.fromEntries(modes.map((mode, i) => [`:mode${i}`, mode]));
  try {
    await sendTransaction([
      {
        Update: {
          TableName: table,
          Key: keys.organization(ref.organizationId),
          UpdateExpression: 'SET active_calls = if_not_exists(active_calls, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(active_calls) OR active_calls < maxConcurrentCalls',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        },
      },
      {
        Update: {
          TableName: table,
          Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
          UpdateExpression:
            'SET #status = :inProgress, answered_at = :at, media_host = :host, gsi1pk = :activePk, gsi1sk = :activeSk',
          ConditionExpression: `#status = :created AND #mode IN (${Object.keys(modeValues).join(', ')}) AND (attribute_not_exists(answered_at) OR attribute_type(answered_at, :null))`,
          ExpressionAttributeNames: { '#status': 'status', '#mode': 'mode' },
          ExpressionAttributeValues: {
            ...modeValues,
            ':created': 'created',
            ':inProgress': 'in_progress',
            ':at': startedAt,
            ':host': mediaHost,
            ':activePk': active.gsi1pk,
            ':activeSk': active.gsi1sk,
            ':null': 'NULL',
          },
        },
      },
      runLogItem(ref, { timestamp: startedAt, level: 'INFO', message: 'Session connected' }),
    ]);
  } catch (error) {
    if (cancelledBy(error, 1)) return undefined;
    if (cancelledBy(error, 0)) return 'at_limit';
    throw error;
  }
  return getRun(ref.organizationId, ref.agentId, ref.runId);
}

/**
 * Deletes a run that is not in progress, and with it the Idempotency-Key record that kept its
 * first response (which names the number); false when it is in progress (or gone).
 */
export async function deleteRun(run: RunRecord): Promise<boolean> {
  const table = tableName();
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: table,
        Key: keys.run(run.organization_id, run.workflow_id, run.id),
        ConditionExpression: 'attribute_exists(pk) AND #status <> :inProgress',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':inProgress': 'in_progress' },
      },
    },
  ];
  if (run.idempotency_record) {
    items.push({
      Delete: {
        TableName: table,
        Key: { pk: keys.idempotencyPartition(CALLS_IDEMPOTENCY_SCOPE), sk: run.idempotency_record },
      },
    });
  }
  try {
    await sendTransaction(items);
    return true;
  } catch (error) {
    if (cancelledBy(error, 0)) return false;
    throw error;
  }
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

/** Browser/chat sessions never connected whose credential expired before `before`, oldest first (the sweeper's view). */
export const listUnconnectedSessionsExpiredBefore = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.unconnectedSessionIndex('', 0, 0, 0).gsi1pk, before, limit);

/** In-progress runs started before `before`, oldest first (the sweeper's view). */
export const listActiveRunsStartedBefore = (before: string, limit: number): Promise<RunRecord[]> =>
  runsIndexedBefore(keys.activeRunIndex('', 0, 0, 0).gsi1pk, before, limit);
