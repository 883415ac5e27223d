import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../aws/clients.ts';
import { loadConfig } from '../config.ts';

export const tableName = (): string => loadConfig().tableName;
export const db = () => dynamoDocumentClient();

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'>;

/**
 * A Query of the table as sent: on the base table a strongly consistent read unless the caller says
 * otherwise, so a list read right after a write (the console lists what it just saved) sees it.
 * DynamoDB's default is eventually consistent, which DynamoDB Local never shows. An index
 * (every one is global) can only be read eventually consistently.
 */
const tableQuery = (input: QueryInput, startKey?: Record<string, unknown>): QueryCommandInput => ({
  ...input,
  ConsistentRead: input.ConsistentRead ?? input.IndexName === undefined,
  TableName: tableName(),
  ExclusiveStartKey: startKey,
});

/** Counts the items of a Query (with its filter), following every page. */
export async function countQuery(input: QueryInput): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...tableQuery(input, startKey), Select: 'COUNT', ProjectionExpression: undefined }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/**
 * Reads the items of a Query from `offset`, at most `limit` of them (all when `limit` is
 * undefined). DynamoDB has no offset, so the skipped items are read too: page-number pagination
 * costs reads proportional to the page's position, which the README states.
 */
export async function queryItems(input: QueryInput, offset = 0, limit?: number): Promise<Record<string, unknown>[]> {
  const wanted = limit === undefined ? Infinity : offset + limit;
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand(tableQuery(input, startKey)));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items.slice(offset, limit === undefined ? undefined : offset + limit);
}

/** Query results one DynamoDB page (at most 1 MB) at a time, for readers that may stop early. */
export async function* queryPages(input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand(tableQuery(input, startKey)));
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const TRANSACTION_ATTEMPTS = 8;

/** A transaction refused by the condition of its `index`th item: nothing of it was written. */
export const refusedAt = (error: unknown, index: number): boolean =>
  error instanceof TransactionCanceledException &&
  error.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';

const conflicted = (error: unknown): boolean =>
  error instanceof TransactionCanceledException &&
  (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');

/**
 * A transaction that may contend with others on a shared item (an organization's channel counter,
 * a campaign's counters). One that lost a conflict changed nothing, so it is retried after a short
 * jittered pause; any other failure is the caller's to interpret.
 */
export async function sendTransaction(items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!conflicted(error) || attempt >= TRANSACTION_ATTEMPTS) throw error;
      await sleep(Math.random() * 20 * attempt);
    }
  }
}
