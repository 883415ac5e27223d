/**
 * A run's life: created (with its channel, in one transaction), its media stream or session
 * admitted, what a call in progress notes, its ending (channel released, billing record written),
 * its deletion. Every change is conditional on the run's state, and its log line is written with it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { CALLS_IDEMPOTENCY_SCOPE, keys } from './keys.ts';
import { appendRunLog, runLogItem } from './run-logs.ts';
import { getRun } from './runs-read.ts';
import { db, refusedAt, sendTransaction, tableName, type TransactItem } from './table.ts';
import type { MachineVerdict, RunLogLine, RunRecord, UsageRecord } from '../domain/run.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { hasSession, sessionExpiresAt } from '../domain/browser-sessions.ts';

const refOf = (run: RunRecord): RunRef => ({
  organizationId: run.organization_id,
  agentId: run.workflow_id,
  runId: run.id,
});

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
    if (takesChannel && refusedAt(error, 0)) return false;
    if (checksAgent && refusedAt(error, takesChannel ? 1 : 0))
      throw new AgentUnavailableError('The agent is missing or archived');
    const refused = alongside.findIndex((_, i) => refusedAt(error, first + i));
    if (refused >= 0) throw new AlongsideRefusedError(refused);
    throw error;
  }
}

/** What ending a call sets on its run; the log line is written with it. */
export type RunEnding = Pick<
  RunRecord,
  | 'status'
  | 'ended_at'
  | 'duration_seconds'
  | 'gathered_context'
  | 'flow'
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
  // A test conversation announces nothing (no call.completed): it leaves the index instead.
  const announced = usage.test_run_id === undefined;
  try {
    await sendTransaction([
      {
        Update: {
          TableName: table,
          Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
          // The index entry moves from "active" to "event pending" until call.completed is published.
          UpdateExpression: `SET ${Object.keys(names)
            .map((name, i) => `${name} = :v${i}`)
            .join(', ')}${announced ? ', gsi1pk = :eventPk, gsi1sk = :eventSk' : ' REMOVE gsi1pk, gsi1sk'}`,
          // The outcome was decided from the answering-machine verdict read: it must still be the run's.
          ConditionExpression: `#status = :from AND ${
            verdictRead ? 'answered_by = :verdict' : '(attribute_not_exists(answered_by) OR answered_by = :null)'
          }`,
          ExpressionAttributeNames: { ...names, '#status': 'status' },
          ExpressionAttributeValues: {
            ...values,
            ...(verdictRead ? { ':verdict': verdictRead } : { ':null': null }),
            ':from': from,
            ...(announced ? { ':eventPk': pendingEvent.gsi1pk, ':eventSk': pendingEvent.gsi1sk } : {}),
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
    if (refusedAt(error, 0)) return false;
    throw error;
  }
}

export type RunUpdate = Pick<
  UpdateCommandInput,
  'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
> & { UpdateExpression: string };

/**
 * A conditional update of a run and the log line that records it, in one transaction (without a
 * line, one UpdateItem); false when the run's condition failed, and nothing is written then.
 */
export async function updateRunWithLog(ref: RunRef, update: RunUpdate, log?: RunLogLine): Promise<boolean> {
  const Key = keys.run(ref.organizationId, ref.agentId, ref.runId);
  try {
    if (log) await sendTransaction([{ Update: { TableName: tableName(), Key, ...update } }, runLogItem(ref, log)]);
    else await db().send(new UpdateCommand({ TableName: tableName(), Key, ...update }));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || refusedAt(error, 0)) return false;
    throw error;
  }
}

/** updateRunWithLog, then the run as it is now (read consistently), or undefined when refused. */
export async function updateRunReturning(
  ref: RunRef,
  update: RunUpdate,
  log?: RunLogLine,
): Promise<RunRecord | undefined> {
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
    if (refusedAt(error, 1)) return undefined;
    if (refusedAt(error, 0)) return 'at_limit';
    throw error;
  }
  return getRun(ref.organizationId, ref.agentId, ref.runId);
}

/**
 * Deletes a run that is not in progress, and with it the Idempotency-Key record that kept its
 * first response (which names the number) and the `alongside` items (its campaign contact's
 * erasure), all or nothing: `in_progress` when it is in progress (or gone), `alongside_refused`
 * when an alongside item's condition failed.
 */
export async function deleteRun(
  run: RunRecord,
  alongside: TransactItem[] = [],
): Promise<'deleted' | 'in_progress' | 'alongside_refused'> {
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
    await sendTransaction([...items, ...alongside]);
    return 'deleted';
  } catch (error) {
    if (refusedAt(error, 0)) return 'in_progress';
    if (alongside.some((_, i) => refusedAt(error, items.length + i))) return 'alongside_refused';
    throw error;
  }
}
