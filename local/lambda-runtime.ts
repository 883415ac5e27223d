import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { AUTHORIZER, type FunctionGroup } from '../shared/api/function-groups.ts';
import { allFunctions, type FunctionName, isSetting, serviceNameOf, settingsFor } from '../shared/config/settings.ts';
import { REPO_ROOT } from './paths.ts';

/** Every handler module exports this shape; the payload type is the handler's own business. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const loaded = new Map<string, Promise<LambdaHandler>>();

/** Imports a function's handler module once, as a warm Lambda execution environment would keep it. */
export function loadHandler(fn: FunctionGroup): Promise<LambdaHandler> {
  let handler = loaded.get(fn.entry);
  if (!handler) {
    handler = import(pathToFileURL(join(REPO_ROOT, fn.entry)).href).then((module: { handler?: LambdaHandler }) => {
      if (typeof module.handler !== 'function') throw new Error(`${fn.entry} does not export a handler`);
      return module.handler;
    });
    loaded.set(fn.entry, handler);
  }
  return handler;
}

/** The Lambda context object for a local invocation of function `name`. */
export function lambdaContext(name: string, fn: FunctionGroup): Context {
  const deadline = Date.now() + (fn.timeoutSeconds ?? 29) * 1000;
  const fail = () => {
    throw new Error('Callback-style completion is not supported: handlers are async');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION ?? 'us-east-1'}:000000000000:function:${name}`,
    memoryLimitInMB: String(fn.memorySize ?? 512),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}

/** Invocations per function since the process started (benchmarks read it). */
export const invocationCounts = new Map<string, number>();

/**
 * Per-function environments. Every handler runs in this one process, so `process.env` is replaced
 * by a view that, inside an invocation (and everything it starts), shows the application settings
 * (shared/config/settings.ts) of that function only, as the CDK stack gives them; other variables
 * (PATH, AWS credentials and emulator endpoints, the Lambda runtime's own) pass through. A
 * function reading a setting it is not given fails at once, naming both: on AWS it would be unset.
 */
interface FunctionScope {
  name: string;
  env: Record<string, string>;
  /** The invocation's number among all of this process (benchmarks group requests by it). */
  invocation?: number;
}
const functionScope = new AsyncLocalStorage<FunctionScope>();
let stackValues: Record<string, string> | undefined;

/** The settings of function `name` in the local stack, with the local stack's values. */
/** Each function's settings (a fixed list: filtering the whole table at every invocation cost the local stack's calls CPU). */
const settingNames = new Map<FunctionName, string[]>();

export function localFunctionEnvironment(
  name: FunctionName,
  fn: FunctionGroup,
  values = stackValues,
): Record<string, string> {
  if (!values) throw new Error('The local functions are not configured: call configureLocalFunctions first');
  const env: Record<string, string> = {};
  let settings = settingNames.get(name);
  if (!settings) settingNames.set(name, (settings = settingsFor(name, fn, { local: true })));
  for (const setting of settings) {
    if (setting === 'POWERTOOLS_SERVICE_NAME') env[setting] = serviceNameOf(name);
    else if (Object.hasOwn(values, setting)) env[setting] = values[setting]!;
    else throw new Error(`The local stack gives no value for ${setting}, which function ${name} reads`);
  }
  return env;
}

function scopedEnvironment(real: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const visible = (scope: FunctionScope, key: string) => Object.hasOwn(scope.env, key) || !isSetting(key);
  return new Proxy(real, {
    get(target, key) {
      // Most reads are of other variables (the SDK reads a few at every request): they pass
      // through without looking up the invocation, whose environment holds settings only.
      if (typeof key !== 'string' || !isSetting(key)) return Reflect.get(target, key);
      const scope = functionScope.getStore();
      if (!scope) return Reflect.get(target, key);
      if (Object.hasOwn(scope.env, key)) return scope.env[key];
      throw new Error(
        `Function ${scope.name} reads ${key}, which the stack does not give it (shared/config/settings.ts)`,
      );
    },
    has(target, key) {
      const scope = functionScope.getStore();
      if (!scope || typeof key !== 'string') return Reflect.has(target, key);
      return Object.hasOwn(scope.env, key) || (!isSetting(key) && Reflect.has(target, key));
    },
    set(target, key, value) {
      const scope = functionScope.getStore();
      if (scope && typeof key === 'string' && isSetting(key)) scope.env[key] = String(value);
      else Reflect.set(target, key, value);
      return true;
    },
    ownKeys(target) {
      const scope = functionScope.getStore();
      if (!scope) return Reflect.ownKeys(target);
      return [
        ...new Set([
          ...Reflect.ownKeys(target).filter((key) => typeof key !== 'string' || visible(scope, key)),
          ...Object.keys(scope.env),
        ]),
      ];
    },
    getOwnPropertyDescriptor(target, key) {
      const scope = functionScope.getStore();
      if (!scope || typeof key !== 'string') return Reflect.getOwnPropertyDescriptor(target, key);
      if (Object.hasOwn(scope.env, key))
        return { value: scope.env[key], writable: true, enumerable: true, configurable: true };
      return visible(scope, key) ? Reflect.getOwnPropertyDescriptor(target, key) : undefined;
    },
  });
}

/**
 * Gives the local functions their settings from `values` (the local stack's environment, read
 * when each invocation starts) and checks now that every function has a value for each setting.
 */
export function configureLocalFunctions(values: Record<string, string>): void {
  for (const [name, fn] of allFunctions(AUTHORIZER)) localFunctionEnvironment(name, fn, values);
  stackValues = values;
  if (!scopedEnvironments.has(process.env)) {
    const scoped = scopedEnvironment(process.env);
    scopedEnvironments.add(scoped);
    process.env = scoped;
  }
}
const scopedEnvironments = new WeakSet<object>();

/** The function an invocation in progress belongs to (benchmarks attribute DynamoDB requests with it). */
export const currentFunctionName = (): string | undefined => functionScope.getStore()?.name;
/** The invocation in progress (benchmarks count a step's requests with it). */
export const currentInvocation = (): number | undefined => functionScope.getStore()?.invocation;
let invocations = 0;

/** Runs `work` as function `name` would see the environment (tests). */
export function runAsFunction<T>(name: FunctionName, fn: FunctionGroup, work: () => T, invocation?: number): T {
  return functionScope.run({ name, env: localFunctionEnvironment(name, fn), invocation }, work);
}

/** Runs a function's handler in this process with a fresh context and the function's own settings. */
export async function invokeLocal(name: string, fn: FunctionGroup, event: unknown): Promise<unknown> {
  invocationCounts.set(name, (invocationCounts.get(name) ?? 0) + 1);
  return runAsFunction(
    name as FunctionName,
    fn,
    async () => {
      const handler = await loadHandler(fn);
      return handler(event, lambdaContext(name, fn));
    },
    ++invocations,
  );
}
