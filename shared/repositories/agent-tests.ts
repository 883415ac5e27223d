import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TestCase } from '../schemas/agent-tests.ts';
import type { TestAttempt, TestRunRecord } from '../domain/agent-test-runs.ts';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

const fromItem = <T>(item: Record<string, unknown>): T => {
  const { type: _type, ...rest } = stripKeys(item);
  return rest as unknown as T;
};

const prefixQuery = (orgId: number, agentId: number, prefix: string, tag?: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ...(tag ? { FilterExpression: 'contains(tags, :tag)' } : {}),
  ExpressionAttributeValues: {
    ':pk': keys.runPartition(orgId, agentId),
    ':prefix': prefix,
    ...(tag ? { ':tag': tag } : {}),
  },
});

/** Writes a new test case (never over another). */
export async function insertTestCase(orgId: number, testCase: TestCase): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.agentTest(orgId, testCase.workflow_id, testCase.id), type: 'agentTest', ...testCase },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getTestCase(orgId: number, agentId: number, testId: string): Promise<TestCase | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.agentTest(orgId, agentId, testId) }),
  );
  return result.Item ? testCaseOf(result.Item) : undefined;
}

/** The agent's test cases in id order, optionally those with `tag`. */
export async function listTestCases(orgId: number, agentId: number, offset: number, limit?: number, tag?: string) {
  const query = prefixQuery(orgId, agentId, keys.agentTestSkPrefix, tag);
  const [totalCount, items] = await Promise.all([countQuery(query), queryItems(query, offset, limit)]);
  return { items: items.map(testCaseOf), totalCount };
}

export const countTestCases = (orgId: number, agentId: number): Promise<number> =>
  countQuery(prefixQuery(orgId, agentId, keys.agentTestSkPrefix));

/**
 * Replaces the changed fields of a test case, only if it is still as it was read (`updated_at`):
 * false when it changed or was deleted meanwhile.
 */
export async function updateTestCase(
  orgId: number,
  agentId: number,
  testId: string,
  changes: Partial<TestCase>,
  readAt: string,
): Promise<boolean> {
  const entries = Object.entries(changes);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.agentTest(orgId, agentId, testId),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'updated_at = :readAt',
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
        ExpressionAttributeValues: {
          ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
          ':readAt': readAt,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function deleteTestCase(orgId: number, agentId: number, testId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.agentTest(orgId, agentId, testId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}

export async function insertTestRun(orgId: number, run: TestRunRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.testRun(orgId, run.workflow_id, run.id), type: 'testRun', ...run },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getTestRun(
  orgId: number,
  agentId: number,
  testRunId: number,
): Promise<TestRunRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.testRun(orgId, agentId, testRunId), ConsistentRead: true }),
  );
  return result.Item ? fromItem<TestRunRecord>(result.Item) : undefined;
}

/** The agent's test runs, newest first. */
export async function listTestRuns(orgId: number, agentId: number, offset: number, limit: number) {
  const query = { ...prefixQuery(orgId, agentId, keys.testRunSkPrefix), ScanIndexForward: false };
  const [totalCount, items] = await Promise.all([countQuery(query), queryItems(query, offset, limit)]);
  return { items: items.map((item) => fromItem<TestRunRecord>(item)), totalCount };
}

/**
 * Moves a test run from one of `from` to `to` with `fields`: false when it is in none of them
 * (finished or cancelled meanwhile), so each state is entered once.
 */
export async function transitionTestRun(
  orgId: number,
  agentId: number,
  testRunId: number,
  from: readonly TestRunRecord['status'][],
  to: TestRunRecord['status'],
  fields: Partial<TestRunRecord> = {},
): Promise<boolean> {
  const entries = Object.entries(fields);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.testRun(orgId, agentId, testRunId),
        UpdateExpression: `SET #status = :to${entries.map((_, i) => `, #f${i} = :v${i}`).join('')}`,
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
        ExpressionAttributeNames: {
          '#status': 'status',
          ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':to': to,
          ...Object.fromEntries(from.map((status, i) => [`:from${i}`, status])),
          ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Records one attempt of one case (a retried task writes the same item again). */
export async function putTestAttempt(orgId: number, agentId: number, attempt: TestAttempt): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.testAttempt(orgId, agentId, attempt.test_run_id, attempt.case_index, attempt.attempt),
        type: 'testAttempt',
        ...attempt,
      },
    }),
  );
}

/** Every recorded attempt of a test run, in case and attempt order. */
export async function listTestAttempts(orgId: number, agentId: number, testRunId: number): Promise<TestAttempt[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.testAttemptPartition(orgId, agentId, testRunId), ':prefix': 'ATTEMPT#' },
    ConsistentRead: true,
  });
  // An attempt recorded before turn latencies were kept has none.
  return items.map((item) => {
    const attempt = fromItem<TestAttempt>(item);
    return { ...attempt, turn_latencies_ms: attempt.turn_latencies_ms ?? [] };
  });
}

/** A stored case; one stored before cases had a mode talks over text. */
function testCaseOf(item: Record<string, unknown>): TestCase {
  const testCase = fromItem<TestCase>(item);
  return { ...testCase, mode: testCase.mode ?? 'text' };
}
