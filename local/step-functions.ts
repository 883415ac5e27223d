import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ExecutionAbortedError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { FUNCTION_GROUPS, type FunctionGroupName } from '../shared/api/function-groups.ts';
import { STATE_MACHINES, type StateMachineSpec } from '../shared/api/state-machines.ts';
import { invokeLocal } from './lambda-runtime.ts';
import { REPO_ROOT } from './paths.ts';

const ACCOUNT_ID = '000000000000';

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  abort: () => void;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** State transitions, and executions started, of every local execution so far by state machine name (benchmarks read them). */
export const stateTransitions = new Map<string, number>();
export const executionsStarted = new Map<string, number>();

export interface LocalStepFunctionsOptions {
  region: string;
  /** Wait state name → milliseconds, to run long waits quickly in tests. */
  waitTimeOverrides?: Record<string, number>;
  /** Retrying state name → milliseconds between attempts. */
  retryIntervalOverrides?: Record<string, number>;
}

export interface LocalStepFunctions {
  endpoint: string;
  /** State machine ARNs by the registry's `envVar`, for the handlers' environment. */
  stateMachineArns: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * Node's timers hold at most 2^31-1 ms (24.8 days); a longer one fires at once. The emulator sleeps
 * through a Wait state with one such timer (and bounds a Task with another), so an engine waiting
 * for a campaign scheduled a month ahead would wake, find it not due, and wait again in a tight
 * loop. Locally, each Wait state is therefore a Task that sleeps toward the target time for at most
 * LOCAL_WAIT_CHUNK_MS and, if the target is further, fails with `LocalWaitPending`, which its Retry
 * turns into the next chunk: one wake-up per 20 days, correct for any distance, as on AWS.
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;
export const LOCAL_WAIT_CHUNK_MS = 20 * 24 * 3600 * 1000;
const LOCAL_WAIT_PENDING = 'LocalWaitPending';

/** One timer toward `deadline` (epoch ms), at most `limitMs` long; true once the deadline is reached (or on abort). */
export function sleepToward(deadline: number, limitMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const left = deadline - Date.now();
    if (left <= 0 || signal.aborted) return resolve(true);
    const stop = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', stop);
        resolve(left <= limitMs);
      },
      Math.min(left, limitMs),
    );
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Stands for the local wait task in rewritten definitions; never invoked as a Lambda. */
const LOCAL_WAIT_RESOURCE = `arn:aws:lambda:us-east-1:${ACCOUNT_ID}:function:localWait`;

type WaitState = {
  Type: 'Wait';
  Seconds?: number;
  SecondsPath?: string;
  Timestamp?: string;
  TimestampPath?: string;
  InputPath?: string;
  OutputPath?: string;
  Next?: string;
  End?: boolean;
  Comment?: string;
};

/**
 * The definition with each top-level Wait state (except those a test overrides by name) turned into
 * the local wait Task: same target time, same input and output (ResultPath null).
 */
export function withLocalWaits(
  definition: StateMachineDefinition,
  overridden: readonly string[] = [],
): { definition: StateMachineDefinition; waitStates: string[] } {
  const states = { ...(definition.States as Record<string, unknown>) };
  const waitStates: string[] = [];
  for (const [name, state] of Object.entries(states)) {
    const wait = state as WaitState;
    if (wait.Type !== 'Wait' || overridden.includes(name)) continue;
    const { Type: _type, Seconds, SecondsPath, Timestamp, TimestampPath, ...rest } = wait;
    const target =
      SecondsPath !== undefined
        ? { 'seconds.$': SecondsPath }
        : TimestampPath !== undefined
          ? { 'timestamp.$': TimestampPath }
          : Timestamp !== undefined
            ? { timestamp: Timestamp }
            : { seconds: Seconds ?? 0 };
    states[name] = {
      Type: 'Task',
      Resource: LOCAL_WAIT_RESOURCE,
      Parameters: target,
      ResultPath: null,
      TimeoutSeconds: Math.ceil(LOCAL_WAIT_CHUNK_MS / 1000) + 60,
      Retry: [{ ErrorEquals: [LOCAL_WAIT_PENDING], IntervalSeconds: 1, MaxAttempts: 99_999_999, BackoffRate: 1 }],
      ...rest,
    };
    waitStates.push(name);
  }
  return { definition: { ...definition, States: states } as StateMachineDefinition, waitStates };
}

/**
 * The local task behind one rewritten Wait state of one execution: one chunk of sleep toward the
 * state's target time. A retry keeps the input, so the deadline of a `seconds` wait is kept here
 * between its chunks.
 */
export function localWait(signal: AbortSignal) {
  let pending: number | undefined;
  return async (input: { seconds?: number; timestamp?: string }) => {
    const deadline =
      pending ??
      (input.timestamp !== undefined ? Date.parse(input.timestamp) : Date.now() + (input.seconds ?? 0) * 1000);
    pending = (await sleepToward(deadline, LOCAL_WAIT_CHUNK_MS, signal)) ? undefined : deadline;
    if (pending !== undefined) throw Object.assign(new Error('The wait continues'), { name: LOCAL_WAIT_PENDING });
    return {};
  };
}

/** The ASL file with `${<group>FunctionArn}` substituted, as CDK's definitionSubstitutions do on AWS. */
function loadDefinition(spec: StateMachineSpec, region: string): StateMachineDefinition {
  const text = readFileSync(join(REPO_ROOT, spec.definitionFile), 'utf8').replace(
    /\$\{(\w+)FunctionArn\}/g,
    (_match, group: string) => {
      if (!(group in FUNCTION_GROUPS)) throw new Error(`${spec.definitionFile}: unknown function group '${group}'`);
      return `arn:aws:lambda:${region}:${ACCOUNT_ID}:function:${group}`;
    },
  );
  return JSON.parse(text) as StateMachineDefinition;
}

/**
 * A Step Functions endpoint (the AWS JSON 1.0 protocol the SDK's SFNClient speaks) that runs the
 * ASL files of `statemachines/` with aws-local-stepfunctions. Task states run the Lambda handler of
 * the function group the registry names for them, in this process. Executions live in memory:
 * anything that must survive a restart is kept in DynamoDB by the workflows themselves.
 */
export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const machines = new Map<string, { spec: StateMachineSpec; machine: StateMachine; waitStates: string[] }>();
  const stateMachineArns: Record<string, string> = {};
  for (const spec of STATE_MACHINES) {
    const arn = `arn:aws:states:${options.region}:${ACCOUNT_ID}:stateMachine:${spec.name}`;
    const { definition, waitStates } = withLocalWaits(
      loadDefinition(spec, options.region),
      Object.keys(options.waitTimeOverrides ?? {}),
    );
    machines.set(arn, { spec, machine: new StateMachine(definition), waitStates });
    stateMachineArns[spec.envVar] = arn;
  }
  const executions = new Map<string, Execution>();

  /** Counts the states an execution enters or retries: what Step Functions bills as state transitions. */
  async function countTransitions(machine: string, events: AsyncGenerator<{ type: string }>) {
    for await (const event of events)
      if (event.type === 'StateEntered' || event.type === 'StateRetried')
        stateTransitions.set(machine, (stateTransitions.get(machine) ?? 0) + 1);
  }

  function taskHandlers(spec: StateMachineSpec, waitStates: string[], signal: AbortSignal) {
    return Object.fromEntries([
      ...Object.entries(spec.tasks).map(([stateName, group]) => [
        stateName,
        (input: unknown) => invokeLocal(group, FUNCTION_GROUPS[group as FunctionGroupName], input) as Promise<never>,
      ]),
      ...waitStates.map((stateName) => [stateName, localWait(signal) as (input: unknown) => Promise<never>]),
    ]);
  }

  function startExecution(request: { stateMachineArn?: string; name?: string; input?: string }) {
    const registered = machines.get(request.stateMachineArn ?? '');
    if (!registered)
      throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
    const name = request.name ?? crypto.randomUUID();
    const executionArn = `${request.stateMachineArn!.replace(':stateMachine:', ':execution:')}:${name}`;
    const input = request.input ?? '{}';
    const existing = executions.get(executionArn);
    if (existing) {
      // Step Functions' idempotency: the same name and input while running returns the same execution.
      if (existing.status === 'RUNNING' && existing.input === input)
        return { executionArn, startDate: existing.startDate };
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    let parsedInput: unknown;
    try {
      parsedInput = JSON.parse(input);
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid State Machine Execution Input');
    }
    const startDate = Date.now() / 1000;
    const waits = new AbortController();
    const run = registered.machine.run(parsedInput as never, {
      overrides: {
        taskResourceLocalHandlers: taskHandlers(registered.spec, registered.waitStates, waits.signal),
        waitTimeOverrides: options.waitTimeOverrides,
        retryIntervalOverrides: options.retryIntervalOverrides,
      },
      context: {
        Execution: {
          Id: executionArn,
          Name: name,
          Input: parsedInput as never,
          StartTime: new Date(startDate * 1000).toISOString(),
        },
      },
    });
    const abort = () => {
      waits.abort();
      run.abort();
    };
    const execution: Execution = {
      executionArn,
      stateMachineArn: request.stateMachineArn!,
      name,
      input,
      status: 'RUNNING',
      startDate,
      abort,
    };
    executions.set(executionArn, execution);
    executionsStarted.set(registered.spec.name, (executionsStarted.get(registered.spec.name) ?? 0) + 1);
    void countTransitions(registered.spec.name, run.eventLogs);
    run.result.then(
      (output) => {
        if (execution.status !== 'RUNNING') return;
        Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output), stopDate: Date.now() / 1000 });
      },
      (error: unknown) => {
        if (execution.status !== 'RUNNING') return;
        if (error instanceof ExecutionAbortedError) return;
        const failure = error as Error & { cause?: { name?: string; message?: string } };
        Object.assign(execution, {
          status: 'FAILED',
          error: failure.cause?.name ?? failure.name,
          cause: failure.cause?.message ?? failure.message,
          stopDate: Date.now() / 1000,
        });
        console.error(`Local Step Functions: execution ${name} failed: ${execution.error}: ${execution.cause}`);
      },
    );
    return { executionArn, startDate };
  }

  function findExecution(executionArn: string | undefined): Execution {
    const execution = executions.get(executionArn ?? '');
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  const describe = ({ abort: _abort, ...execution }: Execution) => execution;

  const actions: Record<string, (request: Record<string, unknown>) => unknown> = {
    StartExecution: (request) => startExecution(request),
    DescribeExecution: (request) => describe(findExecution(request.executionArn as string)),
    StopExecution: (request) => {
      const execution = findExecution(request.executionArn as string);
      if (execution.status === 'RUNNING') {
        Object.assign(execution, {
          status: 'ABORTED',
          stopDate: Date.now() / 1000,
          error: request.error,
          cause: request.cause,
        });
        execution.abort();
      }
      return { stopDate: execution.stopDate };
    },
    ListExecutions: (request) => ({
      executions: [...executions.values()]
        .filter((execution) => execution.stateMachineArn === request.stateMachineArn)
        .filter((execution) => !request.statusFilter || execution.status === request.statusFilter)
        .sort((a, b) => b.startDate - a.startDate)
        .slice(0, (request.maxResults as number | undefined) || 1000)
        .map(({ executionArn, stateMachineArn, name, status, startDate, stopDate }) => ({
          executionArn,
          stateMachineArn,
          name,
          status,
          startDate,
          stopDate,
        })),
    }),
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const action = String(request.headers['x-amz-target'] ?? '').replace('AWSStepFunctions.', '');
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(body));
    };
    try {
      const implementation = actions[action];
      if (!implementation)
        throw new ServiceError('UnknownOperationException', `Operation ${action} is not supported locally`);
      send(200, implementation(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>));
    } catch (error) {
      if (error instanceof ServiceError) send(400, { __type: error.type, message: error.message });
      else send(500, { __type: 'InternalFailure', message: String(error) });
    }
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stateMachineArns,
    stop: async () => {
      for (const execution of executions.values()) if (execution.status === 'RUNNING') execution.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
