/**
 * A run's text messages, each an item of its own in the run's partition (keys.ts `runSms`, beside
 * its log lines): an outbound text is written `queued` in the same transaction as its log line,
 * conditioned on the run being in progress, then moved on by its provider's status reports, each a
 * conditional update that only moves it forward.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.ts';
import { runLogItem } from './run-logs.ts';
import { db, queryPages, refusedAt, sendTransaction, tableName } from './table.ts';
import { historyInOrder, statusesBefore, type RunSmsRecord, type SmsStatus } from '../domain/text-messages.ts';
import type { RunLogLine } from '../domain/run.ts';
import type { RunRef } from '../domain/run-ref.ts';

const key = (ref: RunRef, smsId: string) => keys.runSms(ref.organizationId, ref.agentId, ref.runId, smsId);

/**
 * The run in progress counts the text (`sms_count`), so that a run's end and its reads look for
 * text items only when it has some (most calls send none: no Query for them).
 */
const RUN_IN_PROGRESS = (ref: RunRef) => ({
  Update: {
    TableName: tableName(),
    Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
    UpdateExpression: 'ADD sms_count :one',
    ConditionExpression: '#status = :inProgress',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':inProgress': 'in_progress', ':one': 1 },
  },
});

/**
 * Records a text on a run in progress, with its log line: false when the run has ended (or is
 * gone) or the text is recorded already (a provider's repeated webhook), and nothing is written then.
 */
export async function putRunSms(ref: RunRef, record: RunSmsRecord, line: RunLogLine): Promise<boolean> {
  try {
    await sendTransaction([
      RUN_IN_PROGRESS(ref),
      {
        Put: {
          TableName: tableName(),
          Item: { ...key(ref, record.id), type: 'runSms', ...record, reported_statuses: new Set([record.status]) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      runLogItem(ref, line),
    ]);
    return true;
  } catch (error) {
    if (refusedAt(error, 0) || refusedAt(error, 1)) return false;
    throw error;
  }
}

/**
 * Records a text of a run whatever its status (a reply after the call has ended), counted on the
 * run like any other (its reads look for texts by `sms_count`), with its log line: false when the
 * run is gone (deleted) or the text is already recorded (a repeated webhook).
 */
export async function putLateRunSms(ref: RunRef, record: RunSmsRecord, line: RunLogLine): Promise<boolean> {
  try {
    await sendTransaction([
      {
        Update: {
          TableName: tableName(),
          Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
          UpdateExpression: 'ADD sms_count :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { ...key(ref, record.id), type: 'runSms', ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      runLogItem(ref, line),
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCanceledException) return false;
    throw error;
  }
}

/** What the provider said when it took the text: its id there, its segments and their cost. */
export async function recordSmsAccepted(
  ref: RunRef,
  smsId: string,
  accepted: { providerMessageId: string; segments: number; costUsd: number },
): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key(ref, smsId),
      UpdateExpression: 'SET provider_message_id = :id, #segments = :segments, cost_usd = :cost',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#segments': 'segments' },
      ExpressionAttributeValues: {
        ':id': accepted.providerMessageId,
        ':segments': accepted.segments,
        ':cost': accepted.costUsd,
      },
    }),
  );
}

/**
 * Moves a text on to `status` (a provider's report, or the provider's refusal: `failed`), with its
 * history: false when the report is repeated, names another text, or the text is gone. A report
 * must name the provider's id of the text (a signed report of another text of the same account
 * cannot move this one); a refusal has none yet. A report may come before the provider's answer to
 * the send is recorded (Twilio and Telnyx call back as soon as they move the text), so it may
 * record the id itself. A report of a step the text is already past (a late or out-of-order
 * callback) joins the history, once, without moving the status back.
 */
export async function applySmsStatus(
  ref: RunRef,
  smsId: string,
  change: {
    status: SmsStatus;
    timestamp: string;
    errorCode: string | null;
    errorReason: string | null;
    providerMessageId: string | null;
  },
): Promise<boolean> {
  const earlier = statusesBefore(change.status);
  const values: Record<string, unknown> = {
    ':status': change.status,
    ':reported': new Set([change.status]),
    ':history': [{ status: change.status, timestamp: change.timestamp, error_code: change.errorCode }],
  };
  let sameText = 'attribute_exists(pk)';
  let setId = '';
  if (change.providerMessageId) {
    sameText += ' AND (provider_message_id = :id OR attribute_type(provider_message_id, :nullType))';
    setId = ', provider_message_id = :id';
    values[':id'] = change.providerMessageId;
    values[':nullType'] = 'NULL';
  }
  const earlierValues = Object.fromEntries(earlier.map((status, index) => [`:s${index}`, status]));
  // Nothing is before `queued`: a report of it is only ever a late one.
  const forward =
    earlier.length > 0 &&
    (await conditionalUpdate(ref, smsId, {
      UpdateExpression: `SET #status = :status, status_history = list_append(status_history, :history), error_code = :code, error_reason = :reason${setId} ADD reported_statuses :reported`,
      ConditionExpression: `${sameText} AND #status IN (${Object.keys(earlierValues).join(', ')})`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ...values,
        ...earlierValues,
        ':code': change.errorCode,
        ':reason': change.errorReason,
      },
    }));
  if (forward) return true;
  return conditionalUpdate(ref, smsId, {
    UpdateExpression: `SET status_history = list_append(status_history, :history)${setId} ADD reported_statuses :reported`,
    ConditionExpression: `${sameText} AND #status <> :status AND NOT contains(reported_statuses, :status)`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: values,
  });
}

async function conditionalUpdate(
  ref: RunRef,
  smsId: string,
  update: Pick<
    ConstructorParameters<typeof UpdateCommand>[0],
    'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >,
): Promise<boolean> {
  try {
    await db().send(new UpdateCommand({ TableName: tableName(), Key: key(ref, smsId), ...update }));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const FIELDS = [
  'id',
  'direction',
  'timestamp',
  'from',
  'to',
  'body',
  'status',
  'status_history',
  'error_code',
  'error_reason',
  'segments',
  'cost_usd',
  'sent_by',
  'provider_message_id',
] as const;

/** The run's texts, in the order they were sent or received. */
export async function listRunSms(ref: RunRef): Promise<RunSmsRecord[]> {
  const messages: RunSmsRecord[] = [];
  for await (const page of queryPages({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keys.runLogPartition(ref.organizationId, ref.agentId, ref.runId),
      ':prefix': keys.runSmsSkPrefix,
    },
    ConsistentRead: true,
  })) {
    for (const item of page) {
      const message = Object.fromEntries(
        FIELDS.map((field) => [field, item[field] ?? null]),
      ) as unknown as RunSmsRecord;
      messages.push({ ...message, status_history: historyInOrder(message.status_history ?? []) });
    }
  }
  return messages.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/**
 * Takes one of the organization's texts of this minute (SMS_PER_MINUTE_PER_ORGANIZATION): one
 * conditional ADD on the minute's counter, which expires a day later; false when the minute's are
 * all taken.
 */
export async function takeSmsSlot(orgId: number, now: Date, perMinute: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.smsRate(orgId, now.toISOString().slice(0, 16)),
        UpdateExpression: 'ADD sent :one SET expiresAt = if_not_exists(expiresAt, :expires)',
        ConditionExpression: 'attribute_not_exists(sent) OR sent < :limit',
        ExpressionAttributeValues: {
          ':one': 1,
          ':limit': perMinute,
          ':expires': Math.floor(now.getTime() / 1000) + 86_400,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
