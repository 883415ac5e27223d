/**
 * A campaign on the local stack, measured end to end: every contact a different number (asserted
 * through `total_rows` before anything is timed), DynamoDB requests counted by operation and by
 * the function that sent them, the campaign engine's Step Functions transitions, the wall time,
 * and a floor for it: a plain script replaying the run's own DynamoDB requests against a copy of
 * the table as the run found it, at the same concurrency (the channels), with nothing else around.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { serialize, deserialize } from 'node:v8';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../local/bootstrap.ts';
import { dynamoDocumentClient } from '../shared/aws/clients.ts';
import { currentFunctionName, currentInvocation, invocationCounts } from '../local/lambda-runtime.ts';
import { executionsStarted, stateTransitions } from '../local/step-functions.ts';
import { distinctDaytimeNumbers } from '../test/support/phone-numbers.ts';
import { slotIntervalMs } from '../shared/domain/call-rate.ts';

export type OperationKind = 'reads' | 'writes' | 'transactions' | 'queries';

/** CPU milliseconds per contact of this process and of its child processes (DynamoDB Local). */
export interface CpuMsPerContact {
  process: number;
  dynamoDbLocal: number;
}

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
  /**
   * The engine's steps that dialed nothing (every channel busy, or nothing due yet) and their
   * DynamoDB requests each: what a poll costs, whatever the campaign's size.
   */
  idlePolls: { steps: number; requestsMean: number; requestsMax: number };
  /** State transitions of the campaign-engine executions per contact. */
  engineTransitionsPerContact: number;
  /** Transitions of the calls' own call-lifecycle executions per contact. */
  callTransitionsPerContact: number;
  requestsPerAttempt: number;
  byOperation: Record<OperationKind, number>;
  /** Requests per attempt by the function (or local service) that sent them. */
  byFunction: Record<string, number>;
  /** Requests per attempt by function and DynamoDB operation, and of those the ones refused. */
  byCommand: Record<string, number>;
  refusedByCommand: Record<string, number>;
  /** The bench's own reads per attempt (its progress polls), neither counted nor replayed. */
  benchReadsPerAttempt: number;
  /** Requests sent to DynamoDB per attempt, the bench's and the SDK's retries included. */
  sentPerAttempt: number;
  /**
   * CPU milliseconds per contact during the run (this process is the whole local stack) and during
   * the floor's replay (this process is the replaying script): steadier than wall time on a shared
   * machine (Linux only).
   */
  cpuMsPerContact: CpuMsPerContact | null;
  floorCpuMsPerContact: CpuMsPerContact | null;
  /** DynamoDB Local's time for the run's own requests at the same concurrency, plus the calls' own length when they last. */
  floorSeconds: number;
  /** Items of the table copy the floor replays against (the table as the run found it). */
  floorTableItems: number;
  /** Requests DynamoDB refused (a condition, a cancelled transaction) in the run and in the floor's replay. */
  refused: { run: number; floor: number };
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

/**
 * The run's requests in the order they completed, and in the replay a wait for the first `count`
 * of them to have completed there too: a request sent in the run after `count` completions starts
 * in the replay only once those same requests have completed, so whatever its sender had seen
 * (another request's result, the state it left) is in place, as in the run.
 */
class CompletionOrder {
  /** Indexes of the run's requests, in the order they completed in the run. */
  readonly order: number[] = [];
  private readonly doneInReplay: boolean[] = [];
  private replayedInOrder = 0;
  private waiters: { count: number; resolve: () => void }[] = [];

  completedInRun(index: number): void {
    this.order.push(index);
  }

  completedInReplay(index: number): void {
    this.doneInReplay[index] = true;
    while (this.replayedInOrder < this.order.length && this.doneInReplay[this.order[this.replayedInOrder]!])
      this.replayedInOrder += 1;
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.count > this.replayedInOrder) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once the run's first `count` completions have completed in the replay. */
  replayed(count: number): Promise<void> {
    if (count <= this.replayedInOrder) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/**
 * A request as the stack sent it, how many of the run's requests had completed then, and whether
 * DynamoDB refused it in the run.
 */
interface RecordedRequest {
  request: Buffer;
  after: number;
  refused: boolean;
}

/**
 * Counts every request of the application's DynamoDB client while `counting` is on, and keeps each
 * one as sent (command and document input, serialized at once so later changes cannot touch it) for
 * the floor to replay, with how many DynamoDB refused (a condition or a transaction cancelled).
 */
function requestCounter() {
  const counts = {
    byOperation: { reads: 0, writes: 0, transactions: 0, queries: 0 } as Record<OperationKind, number>,
    byFunction: {} as Record<string, number>,
    /** By function and command ("campaignOutcomes TransactWriteItems"), and those refused. */
    byCommand: {} as Record<string, number>,
    refusedByCommand: {} as Record<string, number>,
    /** Per campaign-engine invocation: its requests, and whether it wrote (dialed or moved contacts on). */
    engineSteps: new Map<number, { requests: number; wrote: boolean }>(),
    total: 0,
    refused: 0,
    /** The bench's own reads (its progress polls): neither counted above nor replayed. */
    benchOwnReads: 0,
    /** Requests sent to DynamoDB, the SDK's retries included. */
    sent: 0,
  };
  const recorded: RecordedRequest[] = [];
  const completions = new CompletionOrder();
  let counting = false;
  dynamoDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (!counting) return next(args);
      const fn = currentFunctionName() ?? 'local services (media, callbacks)';
      const kind = KIND[context.commandName ?? ''] ?? 'writes';
      const benchOwn = BENCH_OWN.has(fn);
      // The bench's own API requests (start, progress polling) are not the campaign's; the floor
      // still replays the start's writes, without which the copy's campaign would never run.
      if (benchOwn && kind !== 'writes' && kind !== 'transactions') {
        counts.benchOwnReads += 1;
        return next(args);
      }
      if (!benchOwn) {
        counts.byOperation[kind] += 1;
        counts.byFunction[fn] = (counts.byFunction[fn] ?? 0) + 1;
        const key = commandKey(fn, context.commandName, args.input);
        counts.byCommand[key] = (counts.byCommand[key] ?? 0) + 1;
        counts.total += 1;
        const invocation = currentInvocation();
        if (fn === 'campaignEngine' && invocation !== undefined) {
          const step = counts.engineSteps.get(invocation) ?? { requests: 0, wrote: false };
          step.requests += 1;
          step.wrote ||= kind === 'writes' || kind === 'transactions';
          counts.engineSteps.set(invocation, step);
        }
      }
      const index = recorded.length;
      const sent: RecordedRequest = {
        request: serialize({ command: context.commandName, input: args.input }),
        after: completions.order.length,
        refused: false,
      };
      recorded.push(sent);
      try {
        return await next(args);
      } catch (error) {
        if (isRefusal(error)) {
          sent.refused = true;
          if (!benchOwn) {
            counts.refused += 1;
            const key = commandKey(fn, context.commandName, args.input);
            counts.refusedByCommand[key] = (counts.refusedByCommand[key] ?? 0) + 1;
          }
        }
        throw error;
      } finally {
        completions.completedInRun(index);
      }
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  // Below the SDK's retries: every request that went to DynamoDB, a retried one each time.
  dynamoDocumentClient().middlewareStack.add(
    (next) => async (args) => {
      if (counting) counts.sent += 1;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchSentCounter', priority: 'low' },
  );
  return {
    counts,
    recorded,
    completions,
    start: () => {
      counting = true;
    },
    stop: () => {
      counting = false;
    },
  };
}

/** "campaignOutcomes TransactWriteItems": the function and the DynamoDB operation (the command's name less `Command`). */
const commandKey = (fn: string, command: string | undefined, input?: unknown) =>
  `${fn} ${(command ?? '?').replace(/Command$/, '')}${process.env.BENCH_ITEM_KINDS ? ` ${itemKinds(input)}` : ''}`;

/** With BENCH_ITEM_KINDS=1: the kinds of item a request touches (the partition keys' prefixes), to tell requests of one operation apart. */
function itemKinds(input: unknown): string {
  const prefix = (key: unknown) => String((key as { pk?: unknown } | undefined)?.pk ?? '').split('#')[0]!;
  const { Key, Item, TransactItems, IndexName } = input as {
    Key?: unknown;
    Item?: unknown;
    TransactItems?: Record<string, { Key?: unknown; Item?: unknown }>[];
    IndexName?: string;
  };
  if (TransactItems)
    return TransactItems.map((item) =>
      Object.entries(item)
        .map(([action, { Key: key, Item: put }]) => `${action}:${prefix(key ?? put)}`)
        .join(),
    ).join('+');
  return IndexName ?? prefix(Key ?? Item);
}

const isRefusal = (error: unknown) =>
  error instanceof Error && ['ConditionalCheckFailedException', 'TransactionCanceledException'].includes(error.name);

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

/**
 * With `BENCH_CPU_PROFILE=<file>`, a V8 CPU profile of the stack's process during the run only
 * (open it in Chrome DevTools or speedscope); otherwise nothing.
 */
async function cpuProfiler() {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const per = (value: number, by: number) => (by === 0 ? 0 : value / by);

/** Counts per attempt, largest first. */
const perAttempt = (counts: Record<string, number>, attempts: number) =>
  Object.fromEntries(
    Object.entries(counts)
      .sort(([, a], [, b]) => b - a)
      .map(([key, count]) => [key, per(count, attempts)]),
  );

/** CPU milliseconds per contact between two readings, of this process and of DynamoDB Local. */
function cpuMsPerContactBetween(
  before: ReturnType<typeof cpuSeconds>,
  after: ReturnType<typeof cpuSeconds>,
  contacts: number,
): CpuMsPerContact | null {
  if (!before || !after) return null;
  return {
    process: per((after.stack - before.stack) * 1000, contacts),
    dynamoDbLocal: per((after.children - before.children) * 1000, contacts),
  };
}

/**
 * The document client's commands, by the name the client's middleware sees (its underlying
 * command's), to replay the document input recorded before marshalling.
 */
const COMMANDS = {
  GetItemCommand: GetCommand,
  BatchGetItemCommand: BatchGetCommand,
  PutItemCommand: PutCommand,
  UpdateItemCommand: UpdateCommand,
  DeleteItemCommand: DeleteCommand,
  BatchWriteItemCommand: BatchWriteCommand,
  TransactWriteItemsCommand: TransactWriteCommand,
  TransactGetItemsCommand: TransactGetCommand,
  QueryCommand,
} as const;

type RecordedInput = {
  TableName?: string;
  TransactItems?: Record<string, { TableName?: string }>[];
  RequestItems?: Record<string, unknown>;
};

/** The same request addressed to `table` instead of the application's table. */
function onTable(input: RecordedInput, table: string): RecordedInput {
  if (input.TableName !== undefined) input.TableName = table;
  for (const item of input.TransactItems ?? []) for (const action of Object.values(item)) action.TableName = table;
  if (input.RequestItems)
    input.RequestItems = Object.fromEntries(Object.values(input.RequestItems).map((items) => [table, items]));
  return input;
}

/** Copies every item of `from` into `to` (a new table of the same schema): the state the run started from. */
async function copyTable(from: string, to: string): Promise<number> {
  const db = dynamoDocumentClient();
  await ensureTable(new DynamoDBClient({}), to);
  const SEGMENTS = 4;
  const copied = await Promise.all(
    Array.from({ length: SEGMENTS }, async (_, segment) => {
      let count = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new ScanCommand({ TableName: from, Segment: segment, TotalSegments: SEGMENTS, ExclusiveStartKey }),
        );
        const items = page.Items ?? [];
        for (let i = 0; i < items.length; i += 25) {
          let requests: { PutRequest: { Item: Record<string, unknown> } }[] | undefined = items
            .slice(i, i + 25)
            .map((Item) => ({ PutRequest: { Item } }));
          while (requests?.length) {
            const written = await db.send(new BatchWriteCommand({ RequestItems: { [to]: requests } }));
            requests = written.UnprocessedItems?.[to] as typeof requests;
          }
        }
        count += items.length;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return count;
    }),
  );
  return copied.reduce((sum, count) => sum + count, 0);
}

/**
 * The floor: the run's own DynamoDB requests, exactly as the stack sent them (same operations,
 * items, conditions and indexes), replayed in the order sent by `concurrency` workers (the
 * channels) against a copy of the table as the run found it, by this script alone. A request
 * starts only once every request that had completed before it was sent in the run has completed
 * here (`CompletionOrder`). A request DynamoDB refused in the run (a lost race for the call-rate
 * slot, a full organization) is not replayed: replayed, it could win this time and send the rest
 * of the replay down another path (a run id written twice, a contact claimed by someone else).
 * Leaving out their work makes the floor err low, the ratio high; the `refused` figure counts the
 * requests the replay still saw refused (races that ended the other way round).
 */
async function replayFloor(
  recorded: RecordedRequest[],
  completions: CompletionOrder,
  table: string,
  concurrency: number,
) {
  const db = dynamoDocumentClient();
  let next = 0;
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < recorded.length) {
        const index = next++;
        const { request, after, refused: refusedInRun } = recorded[index]!;
        if (refusedInRun) {
          completions.completedInReplay(index);
          continue;
        }
        const { command, input } = deserialize(request) as { command: string; input: RecordedInput };
        // Typed as one command: the input is the recorded one, whichever command it belongs to.
        const Command = COMMANDS[command as keyof typeof COMMANDS] as unknown as
          (new (input: RecordedInput) => GetCommand) | undefined;
        if (!Command) throw new Error(`The floor cannot replay ${command} (add it to COMMANDS)`);
        await completions.replayed(after);
        try {
          await db.send(new Command(onTable(input, table)));
        } catch (error) {
          if (!isRefusal(error)) throw error;
          refused += 1;
        } finally {
          completions.completedInReplay(index);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await db.send(new DeleteTableCommand({ TableName: table }));
  return { seconds, refused };
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

/**
 * Contacts of the campaign run, uncounted, before the measured one (BENCH_WARMUP_CONTACTS, default
 * 500; 0 for none): DynamoDB Local is a fresh JVM, and its JIT compiling the code paths the run
 * takes cost the first minutes 20-30 s of its CPU (25 ms of its CPU per contact in a 2,000-contact
 * run, against 12 in the replay that follows). The replay ran warm, so the ratio charged the run
 * with the emulator's warm-up, more the smaller the run. DynamoDB itself is never cold.
 */
const WARMUP_CONTACTS = Number(process.env.BENCH_WARMUP_CONTACTS ?? 500);

async function warmUp(baseUrl: string, { channels, lastDigit }: CampaignScenario): Promise<void> {
  if (WARMUP_CONTACTS <= 0) return;
  const { createOrganization } = await import('../shared/services/organizations.ts');
  const { apiKey } = await createOrganization({ name: 'Campaign bench warm-up', maxConcurrentCalls: channels });
  const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
  const agent = (await (
    await fetch(`${baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'Warm-up' }) })
  ).json()) as { id: number };
  const { campaign } = await createCampaign(
    baseUrl,
    headers,
    agent.id,
    await distinctDaytimeNumbers(WARMUP_CONTACTS, lastDigit),
  );
  await fetch(`${baseUrl}/campaigns/${campaign.id}/start`, { method: 'POST', headers });
  await completion(baseUrl, headers, campaign.id);
}

/** Polls a campaign until it completes; answers the contacts it processed. */
async function completion(baseUrl: string, headers: Record<string, string>, campaignId: number): Promise<number> {
  for (;;) {
    const campaign = (await (await poll(`${baseUrl}/campaigns/${campaignId}`, headers)).json()) as {
      state: string;
      processed_rows: number;
    };
    if (campaign.state === 'completed') return campaign.processed_rows;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runCampaign(baseUrl: string, scenario: CampaignScenario): Promise<CampaignFigures> {
  const { label, contacts, channels, lastDigit } = scenario;
  await warmUp(baseUrl, scenario);
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

  const table = process.env.TABLE_NAME!;
  const floorTable = `${table}-floor`;
  const floorTableItems = await copyTable(table, floorTable);
  const stepsBefore = invocationCounts.get('campaignEngine') ?? 0;
  const transitionsBefore = new Map(stateTransitions);
  const executionsBefore = new Map(executionsStarted);
  counter.start();
  const profiler = await cpuProfiler();
  const cpuBefore = cpuSeconds();
  const runStarted = performance.now();
  await fetch(`${baseUrl}/campaigns/${created.campaign.id}/start`, { method: 'POST', headers });
  // Retries are off: every contact is dialed exactly once.
  const attempts = await completion(baseUrl, headers, created.campaign.id);
  const runSeconds = (performance.now() - runStarted) / 1000;
  const cpuAfter = cpuSeconds();
  await profiler.stop();
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
  const cpuBeforeFloor = cpuSeconds();
  const replay = await replayFloor(counter.recorded, counter.completions, floorTable, channels);
  const cpuAfterFloor = cpuSeconds();
  const databaseFloor = replay.seconds;
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
    idlePolls: idlePolls(counts.engineSteps),
    engineTransitionsPerContact: per(engineTransitions, contacts),
    callTransitionsPerContact: per(callTransitions, contacts),
    requestsPerAttempt: per(counts.total, attempts),
    byOperation: Object.fromEntries(
      Object.entries(counts.byOperation).map(([kind, count]) => [kind, per(count, attempts)]),
    ) as Record<OperationKind, number>,
    byFunction: Object.fromEntries(Object.entries(counts.byFunction).map(([fn, count]) => [fn, per(count, attempts)])),
    byCommand: perAttempt(counts.byCommand, attempts),
    refusedByCommand: perAttempt(counts.refusedByCommand, attempts),
    benchReadsPerAttempt: per(counts.benchOwnReads, attempts),
    sentPerAttempt: per(counts.sent, attempts),
    cpuMsPerContact: cpuMsPerContactBetween(cpuBefore, cpuAfter, contacts),
    floorCpuMsPerContact: cpuMsPerContactBetween(cpuBeforeFloor, cpuAfterFloor, contacts),
    floorSeconds: floor,
    databaseFloorSeconds: databaseFloor,
    floorTableItems,
    refused: { run: counts.refused, floor: replay.refused },
    pacingFloorSeconds: pacingFloor,
    ratio: runSeconds / floor,
  };
}

function idlePolls(steps: Map<number, { requests: number; wrote: boolean }>): CampaignFigures['idlePolls'] {
  const idle = [...steps.values()].filter((step) => !step.wrote).map((step) => step.requests);
  return {
    steps: idle.length,
    requestsMean: idle.length ? idle.reduce((sum, requests) => sum + requests, 0) / idle.length : 0,
    requestsMax: Math.max(0, ...idle),
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
