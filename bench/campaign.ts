/**
 * A campaign on the local stack, measured end to end: every contact a different number (asserted
 * through `total_rows` before anything is timed), DynamoDB requests counted by operation and by
 * the function that sent them, the campaign engine's Step Functions transitions, the wall time,
 * and a floor for it: a plain script sending DynamoDB Local the same requests per contact, at the
 * same concurrency (the channels), with nothing else around them.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../shared/aws/clients.ts';
import { currentFunctionName, invocationCounts } from '../local/lambda-runtime.ts';
import { executionsStarted, stateTransitions } from '../local/step-functions.ts';
import { distinctDaytimeNumbers } from '../test/support/phone-numbers.ts';
import { slotIntervalMs } from '../shared/domain/call-rate.ts';

export type OperationKind = 'reads' | 'writes' | 'transactions' | 'queries';

export interface CampaignFigures {
  label: string;
  contacts: number;
  channels: number;
  attempts: number;
  /** The create request's own time, and until the contacts were all stored (background import). */
  createAnsweredSeconds: number;
  createSeconds: number;
  runSeconds: number;
  engineSteps: number;
  /** State transitions of the campaign-engine executions per contact. */
  engineTransitionsPerContact: number;
  /** Transitions of the calls' own call-lifecycle executions per contact. */
  callTransitionsPerContact: number;
  requestsPerAttempt: number;
  byOperation: Record<OperationKind, number>;
  /** Requests per attempt by the function (or local service) that sent them. */
  byFunction: Record<string, number>;
  /**
   * CPU milliseconds per contact during the run, of this process (the whole local stack) and of its
   * child processes (DynamoDB Local): steadier than wall time on a shared machine (Linux only).
   */
  cpuMsPerContact: { stack: number; dynamoDbLocal: number } | null;
  /** DynamoDB Local's time for the same requests at the same concurrency, plus the calls' own length when they last. */
  floorSeconds: number;
  /** The floor's parts: DynamoDB Local's time, and the account's call rate's (contacts × slot interval). */
  databaseFloorSeconds: number;
  pacingFloorSeconds: number;
  ratio: number;
}

const KIND: Record<string, OperationKind> = {
  GetItemCommand: 'reads',
  BatchGetItemCommand: 'reads',
  GetCommand: 'reads',
  BatchGetCommand: 'reads',
  PutItemCommand: 'writes',
  UpdateItemCommand: 'writes',
  DeleteItemCommand: 'writes',
  BatchWriteItemCommand: 'writes',
  PutCommand: 'writes',
  UpdateCommand: 'writes',
  DeleteCommand: 'writes',
  BatchWriteCommand: 'writes',
  TransactWriteItemsCommand: 'transactions',
  TransactGetItemsCommand: 'transactions',
  TransactWriteCommand: 'transactions',
  TransactGetCommand: 'transactions',
  QueryCommand: 'queries',
  ScanCommand: 'queries',
};

/** Functions only the bench's own HTTP requests run. */
const BENCH_OWN = new Set(['campaigns', 'authorizer']);

/** Counts every request of the application's DynamoDB client while `counting` is on. */
function requestCounter() {
  const counts = {
    byOperation: { reads: 0, writes: 0, transactions: 0, queries: 0 } as Record<OperationKind, number>,
    byFunction: {} as Record<string, number>,
    total: 0,
  };
  let counting = false;
  dynamoDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const fn = currentFunctionName() ?? 'local services (media, callbacks)';
      // The bench's own API requests (start, progress polling) are not the campaign's.
      if (counting && !BENCH_OWN.has(fn)) {
        counts.byOperation[KIND[context.commandName ?? ''] ?? 'writes'] += 1;
        counts.byFunction[fn] = (counts.byFunction[fn] ?? 0) + 1;
        counts.total += 1;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  return {
    counts,
    start: () => {
      counting = true;
    },
    stop: () => {
      counting = false;
    },
  };
}

/**
 * A progress read, again after a connection error: over an hour of polling a loaded local gateway,
 * a kept-alive socket is sometimes reset (it ended the first 100,000-contact run).
 */
async function poll(url: string, headers: Record<string, string>): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetch(url, { headers });
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** CPU seconds of this process and of its running children (DynamoDB Local), from /proc; null elsewhere. */
function cpuSeconds(): { stack: number; children: number } | null {
  if (!existsSync('/proc/self/stat')) return null;
  // Fields after the command's closing parenthesis: state (3), ppid (4) … utime (14), stime (15), in clock ticks.
  const fields = (pid: string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  let children = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fields(pid);
      if (Number(stat[1]) === process.pid) children += (Number(stat[11]) + Number(stat[12])) / 100;
    } catch {
      // The process ended while the table was read.
    }
  }
  const { user, system } = process.cpuUsage();
  return { stack: (user + system) / 1e6, children };
}

const per = (value: number, by: number) => (by === 0 ? 0 : value / by);

/**
 * The floor: `contacts` units of work at `concurrency`, unit i sending its share of the measured
 * requests (reads as GetItem, writes as UpdateItem, transactions as a 2-item TransactWriteItems,
 * queries as a Query of up to 25 items) to DynamoDB Local, one after another.
 */
async function floorSeconds(
  contacts: number,
  concurrency: number,
  totals: Record<OperationKind, number>,
): Promise<number> {
  const db = dynamoDocumentClient();
  const table = process.env.TABLE_NAME!;
  const run = randomUUID();
  const key = (i: number) => ({ pk: `BENCHFLOOR#${run}#${i % 1000}`, sk: `ITEM#${i}` });
  const send: Record<OperationKind, (i: number) => Promise<unknown>> = {
    reads: (i) => db.send(new GetCommand({ TableName: table, Key: key(i), ConsistentRead: true })),
    writes: (i) =>
      db.send(
        new UpdateCommand({
          TableName: table,
          Key: key(i),
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    transactions: (i) =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: key(i),
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            { Put: { TableName: table, Item: { ...key(i + contacts), n: 1 } } },
          ],
        }),
      ),
    queries: (i) =>
      db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': key(i).pk },
          Limit: 25,
        }),
      ),
  };
  for (let i = 0; i < Math.min(contacts, 1000); i += 1)
    await db.send(new PutCommand({ TableName: table, Item: { ...key(i), n: 0 } }));
  // Unit i sends the requests whose running share crosses an integer: the totals exactly.
  const unit = async (i: number) => {
    for (const kind of ['queries', 'reads', 'transactions', 'writes'] as const) {
      const count = Math.floor(((i + 1) * totals[kind]) / contacts) - Math.floor((i * totals[kind]) / contacts);
      for (let n = 0; n < count; n += 1) await send[kind](i);
    }
  };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < contacts) await unit(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

export interface CampaignScenario {
  label: string;
  contacts: number;
  channels: number;
  /** Last digit of every number: the simulated outcome (7 busy at once, 0-6 answered for the call length). */
  lastDigit: number;
  /** Length of an answered call (the local stack's simulated callee); 0 for calls that end at once. */
  callSeconds: number;
  /** The provider account's call rate (the local Twilio enforces it; the dialers pace themselves to it). */
  callsPerSecond: number;
}

export async function runCampaign(baseUrl: string, scenario: CampaignScenario): Promise<CampaignFigures> {
  const { label, contacts, channels, lastDigit } = scenario;
  const counter = requestCounter();
  const { createOrganization } = await import('../shared/services/organizations.ts');
  const { apiKey } = await createOrganization({ name: `Campaign bench ${label}`, maxConcurrentCalls: channels });
  const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
  const agent = (await (
    await fetch(`${baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench' }) })
  ).json()) as { id: number };
  const numbers = await distinctDaytimeNumbers(contacts, lastDigit);
  const created = await createCampaign(baseUrl, headers, agent.id, numbers);
  if (created.campaign.total_rows !== contacts)
    throw new Error(`The campaign holds ${created.campaign.total_rows} contacts, not the ${contacts} sent`);

  const stepsBefore = invocationCounts.get('campaignEngine') ?? 0;
  const transitionsBefore = new Map(stateTransitions);
  const executionsBefore = new Map(executionsStarted);
  counter.start();
  const cpuBefore = cpuSeconds();
  const runStarted = performance.now();
  let attempts = 0;
  await fetch(`${baseUrl}/campaigns/${created.campaign.id}/start`, { method: 'POST', headers });
  for (;;) {
    const campaign = (await (await poll(`${baseUrl}/campaigns/${created.campaign.id}`, headers)).json()) as {
      state: string;
      processed_rows: number;
    };
    if (campaign.state === 'completed') {
      // Retries are off: every contact is dialed exactly once.
      attempts = campaign.processed_rows;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const runSeconds = (performance.now() - runStarted) / 1000;
  const cpuAfter = cpuSeconds();
  counter.stop();
  const engineSteps = (invocationCounts.get('campaignEngine') ?? 0) - stepsBefore;
  if (attempts !== contacts) throw new Error(`${attempts} contacts were dialed, not the ${contacts} of the campaign`);
  const since = (counts: Map<string, number>, before: Map<string, number>, machine: string) =>
    (counts.get(machine) ?? 0) - (before.get(machine) ?? 0);
  // The states the executions entered (or retried), as Step Functions bills them; each call's
  // execution still waits for its watchdog, whose EnsureEnded state comes long after: one more each.
  const engineTransitions = since(stateTransitions, transitionsBefore, 'campaign-engine');
  const callTransitions =
    since(stateTransitions, transitionsBefore, 'call-lifecycle') +
    since(executionsStarted, executionsBefore, 'call-lifecycle');
  const { counts } = counter;
  // Calls that last take their own time on top: rounds of `channels` calls of `callSeconds` each.
  // No engine can dial faster than the account's call rate either.
  const databaseFloor = await floorSeconds(contacts, channels, counts.byOperation);
  const pacingFloor = (contacts * slotIntervalMs(scenario.callsPerSecond)) / 1000;
  const floor = Math.max(databaseFloor, pacingFloor) + Math.ceil(contacts / channels) * scenario.callSeconds;
  return {
    label,
    contacts,
    channels,
    attempts,
    createAnsweredSeconds: created.answeredSeconds,
    createSeconds: created.seconds,
    runSeconds,
    engineSteps,
    engineTransitionsPerContact: per(engineTransitions, contacts),
    callTransitionsPerContact: per(callTransitions, contacts),
    requestsPerAttempt: per(counts.total, attempts),
    byOperation: Object.fromEntries(
      Object.entries(counts.byOperation).map(([kind, count]) => [kind, per(count, attempts)]),
    ) as Record<OperationKind, number>,
    byFunction: Object.fromEntries(Object.entries(counts.byFunction).map(([fn, count]) => [fn, per(count, attempts)])),
    cpuMsPerContact:
      cpuBefore && cpuAfter
        ? {
            stack: per((cpuAfter.stack - cpuBefore.stack) * 1000, contacts),
            dynamoDbLocal: per((cpuAfter.children - cpuBefore.children) * 1000, contacts),
          }
        : null,
    floorSeconds: floor,
    databaseFloorSeconds: databaseFloor,
    pacingFloorSeconds: pacingFloor,
    ratio: runSeconds / floor,
  };
}

/** Creates the campaign from a CSV (the source for large lists) and waits for its background import, if any. */
async function createCampaign(baseUrl: string, headers: Record<string, string>, agentId: number, numbers: string[]) {
  const body = {
    name: `${numbers.length} contacts`,
    workflow_id: agentId,
    source_type: 'csv',
    source_config: {
      csv_text: `phone,first_name\n${numbers.map((number, i) => `${number},Contact${i + 1}`).join('\n')}`,
    },
    calling_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '23:59' },
    retry_config: { enabled: false },
  };
  const started = performance.now();
  const response = await fetch(`${baseUrl}/campaigns`, { method: 'POST', headers, body: JSON.stringify(body) });
  let campaign = (await response.json()) as { id: number; total_rows: number; state: string };
  if (!response.ok)
    throw new Error(`POST /campaigns answered ${response.status}: ${JSON.stringify(campaign).slice(0, 300)}`);
  const answeredSeconds = (performance.now() - started) / 1000;
  while (campaign.state === 'importing') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    campaign = (await (await poll(`${baseUrl}/campaigns/${campaign.id}`, headers)).json()) as typeof campaign;
  }
  return { campaign, answeredSeconds, seconds: (performance.now() - started) / 1000 };
}
