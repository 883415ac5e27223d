import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { FunctionGroup } from '../shared/api/function-groups.ts';
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

/** The function an invocation in progress belongs to (benchmarks attribute DynamoDB requests with it). */
export const currentInvocation = new AsyncLocalStorage<string>();

/** Runs a function's handler in this process with a fresh context. */
export async function invokeLocal(name: string, fn: FunctionGroup, event: unknown): Promise<unknown> {
  invocationCounts.set(name, (invocationCounts.get(name) ?? 0) + 1);
  const handler = await loadHandler(fn);
  return currentInvocation.run(name, () => handler(event, lambdaContext(name, fn)));
}
