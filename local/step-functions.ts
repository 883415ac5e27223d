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

/** The ASL file with `${<group>FunctionArn}` substituted, as CDK's definitionSubstitutions do on AWS. */
function loadDefinition(spec: StateMachineSpec, region: string): StateMachineDefinition {
  const text = readFileSync(join(REPO_ROOT, spec.definitionFile), 'utf8').replace(/\$\{(\w+)FunctionArn\}/g, (_match, group: string) => {
    if (!(group in FUNCTION_GROUPS)) throw new Error(`${spec.definitionFile}: unknown function group '${group}'`);
    return `arn:aws:lambda:${region}:${ACCOUNT_ID}:function:${group}`;
  });
  return JSON.parse(text) as StateMachineDefinition;
}

/**
 * A Step Functions endpoint (the AWS JSON 1.0 protocol the SDK's SFNClient speaks) that runs the
 * ASL files of `statemachines/` with aws-local-stepfunctions. Task states run the Lambda handler of
 * the function group the registry names for them, in this process. Executions live in memory:
 * anything that must survive a restart is kept in DynamoDB by the workflows themselves.
 */
export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const machines = new Map<string, { spec: StateMachineSpec; machine: StateMachine }>();
  const stateMachineArns: Record<string, string> = {};
  for (const spec of STATE_MACHINES) {
    const arn = `arn:aws:states:${options.region}:${ACCOUNT_ID}:stateMachine:${spec.name}`;
    machines.set(arn, { spec, machine: new StateMachine(loadDefinition(spec, options.region)) });
    stateMachineArns[spec.envVar] = arn;
  }
  const executions = new Map<string, Execution>();

  function taskHandlers(spec: StateMachineSpec) {
    return Object.fromEntries(
      Object.entries(spec.tasks).map(([stateName, group]) => [
        stateName,
        (input: unknown) => invokeLocal(group, FUNCTION_GROUPS[group as FunctionGroupName], input) as Promise<never>,
      ]),
    );
  }

  function startExecution(request: { stateMachineArn?: string; name?: string; input?: string }) {
    const registered = machines.get(request.stateMachineArn ?? '');
    if (!registered) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
    const name = request.name ?? crypto.randomUUID();
    const executionArn = `${request.stateMachineArn!.replace(':stateMachine:', ':execution:')}:${name}`;
    const input = request.input ?? '{}';
    const existing = executions.get(executionArn);
    if (existing) {
      // Step Functions' idempotency: the same name and input while running returns the same execution.
      if (existing.status === 'RUNNING' && existing.input === input) return { executionArn, startDate: existing.startDate };
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    let parsedInput: unknown;
    try {
      parsedInput = JSON.parse(input);
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid State Machine Execution Input');
    }
    const startDate = Date.now() / 1000;
    const run = registered.machine.run(parsedInput as never, {
      overrides: {
        taskResourceLocalHandlers: taskHandlers(registered.spec),
        waitTimeOverrides: options.waitTimeOverrides,
        retryIntervalOverrides: options.retryIntervalOverrides,
      },
      context: { Execution: { Id: executionArn, Name: name, Input: parsedInput as never, StartTime: new Date(startDate * 1000).toISOString() } },
    });
    const execution: Execution = { executionArn, stateMachineArn: request.stateMachineArn!, name, input, status: 'RUNNING', startDate, abort: run.abort };
    executions.set(executionArn, execution);
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
        Object.assign(execution, { status: 'ABORTED', stopDate: Date.now() / 1000, error: request.error, cause: request.cause });
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
        .map(({ executionArn, stateMachineArn, name, status, startDate, stopDate }) => ({ executionArn, stateMachineArn, name, status, startDate, stopDate })),
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
      if (!implementation) throw new ServiceError('UnknownOperationException', `Operation ${action} is not supported locally`);
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
