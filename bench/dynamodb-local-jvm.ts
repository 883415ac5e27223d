/**
 * DynamoDB Local's JVM with its own defaults against the options the tests' stack passes
 * (test/support/global-setup.ts: C1 only, the serial collector), side by side in one run: the same
 * requests (a conditional put, a consistent get, a conditional update, every fifth a query; six at
 * once, like the stack's) against each, alternating, and the JVM's CPU from /proc (its start apart).
 *
 *   npx tsx bench/dynamodb-local-jvm.ts [items per round, default 3000] [rounds, default 2]
 */
import { readFileSync } from 'node:fs';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../local/emulators/dynamodb-local.ts';

const TESTS_STACK_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const items = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 2);
const CONCURRENCY = 6;
const TABLE = 'bench';

/** User and system CPU seconds of a process, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(jvmOptions: readonly string[]) {
  const local = await startDynamoDbLocal({ jvmOptions });
  try {
    const startCpu = cpuSeconds(local.pid);
    const raw = new DynamoDBClient({
      endpoint: local.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    const documents = DynamoDBDocumentClient.from(raw);
    await raw.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    const startedAt = performance.now();
    let next = 0;
    let requests = 0;
    const worker = async () => {
      while (next < items) {
        const index = next++;
        const Key = { pk: `org#${index % 50}`, sk: `item#${index}` };
        await documents.send(
          new PutCommand({
            TableName: TABLE,
            Item: { ...Key, body: 'x'.repeat(800), count: 0 },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        await documents.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }));
        await documents.send(
          new UpdateCommand({
            TableName: TABLE,
            Key,
            UpdateExpression: 'SET #count = #count + :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1 },
          }),
        );
        requests += 3;
        if (index % 5 === 0) {
          await documents.send(
            new QueryCommand({
              TableName: TABLE,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': Key.pk },
              Limit: 20,
            }),
          );
          requests += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - startedAt) / 1000;
    raw.destroy();
    return { startCpu, workCpu: cpuSeconds(local.pid) - startCpu, seconds, requests };
  } finally {
    await local.stop();
  }
}

const rows: string[][] = [];
for (let round = 1; round <= rounds; round++)
  for (const [name, options] of [
    ['JVM defaults (npm start)', []],
    ["tests' stack", TESTS_STACK_OPTIONS],
  ] as const) {
    const result = await measure(options);
    rows.push([
      String(round),
      name,
      result.startCpu.toFixed(2),
      result.workCpu.toFixed(2),
      ((result.workCpu / result.requests) * 1000).toFixed(3),
      result.seconds.toFixed(1),
    ]);
  }
console.log(`DynamoDB Local, ${items} items a round (${CONCURRENCY} at once), JVM CPU from /proc:\n`);
console.log('| round | JVM | start CPU s | requests CPU s | CPU ms per request | wall s |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
