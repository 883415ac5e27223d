import { readFileSync } from 'node:fs';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  LOCAL_WAIT_CHUNK_MS,
  LONGEST_TIMER_MS,
  localWait,
  sleepToward,
  withLocalWaits,
} from '../../local/step-functions.ts';

const DAY_MS = 24 * 3600 * 1000;
const NOW = new Date('2026-11-23T10:00:00Z');

/** An ASL file as the local stack runs it: Lambda ARNs substituted, Wait states run locally. */
function localMachine(file: string): { machine: StateMachine; waitStates: string[] } {
  const text = readFileSync(new URL(`../../statemachines/${file}`, import.meta.url), 'utf8').replace(
    /\$\{(\w+)FunctionArn\}/g,
    (_match, group: string) => `arn:aws:lambda:us-east-1:000000000000:function:${group}`,
  );
  const { definition, waitStates } = withLocalWaits(JSON.parse(text) as StateMachineDefinition);
  return { machine: new StateMachine(definition), waitStates };
}

describe('local Step Functions waits of any length', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: NOW });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('a chunk never asks Node for a timer longer than it can hold', async () => {
    expect(LOCAL_WAIT_CHUNK_MS).toBeLessThan(LONGEST_TIMER_MS);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let reached: boolean | undefined;
    void sleepToward(Date.now() + 30 * DAY_MS, LOCAL_WAIT_CHUNK_MS, new AbortController().signal).then(
      (value) => (reached = value),
    );
    await vi.advanceTimersByTimeAsync(LOCAL_WAIT_CHUNK_MS);
    expect(reached).toBe(false);
    expect(timers.mock.calls.map(([, delay]) => delay)).toEqual([LOCAL_WAIT_CHUNK_MS]);
  });

  it('a stopped execution stops sleeping', async () => {
    const stop = new AbortController();
    let reached: boolean | undefined;
    void sleepToward(Date.now() + 60 * DAY_MS, LOCAL_WAIT_CHUNK_MS, stop.signal).then((value) => (reached = value));
    stop.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(reached).toBe(true);
  });

  it('a campaign scheduled 30 days ahead neither starts early nor spins', async () => {
    const startAt = new Date(NOW.getTime() + 30 * DAY_MS).toISOString();
    const steps: string[] = [];
    const step = async (input: { campaign: unknown; generation: number; part: number; step: number }) => {
      steps.push(new Date().toISOString());
      // As the engine does for a scheduled campaign: wait until its start, then (here) stop. The
      // task answers the next step's input with the step's result (functions/campaign-engine).
      const result =
        Date.now() < Date.parse(startAt)
          ? { action: 'wait', waitUntil: startAt }
          : { action: 'stop', reason: 'started' };
      return { ...input, step: input.step + 1, result };
    };
    const { machine, waitStates } = localMachine('campaign-engine.asl.json');
    expect(waitStates).toEqual(['Sleep', 'RecoverStep', 'RecoverContinue']);
    const sleep = localWait(new AbortController().signal);
    let wakes = 0;
    const { result } = machine.run(
      { campaign: { organizationId: 1, campaignId: 1 }, generation: 1, part: 0, step: 0 },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Step: step as never,
            ContinueAsNew: step as never,
            Sleep: ((input: never) => {
              wakes += 1;
              return sleep(input);
            }) as never,
          },
        },
      },
    );
    let done = false;
    void result.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(30 * DAY_MS - 1000);
    // One step, then asleep: a wake-up per 20-day chunk, no step in between.
    expect(steps).toHaveLength(1);
    expect(wakes).toBe(2);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => expect(done).toBe(true));
    expect(steps).toHaveLength(2);
    expect(Date.parse(steps[1]!) - Date.parse(startAt)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(steps[1]!) - Date.parse(startAt)).toBeLessThanOrEqual(2000);
  });

  it('a seconds wait keeps its deadline across chunks (call watchdog, 40 days)', async () => {
    const { machine } = localMachine('call-lifecycle.asl.json');
    const actions: string[] = [];
    const task = async (input: { action: string }) => {
      actions.push(`${input.action}@${Math.round((Date.now() - NOW.getTime()) / DAY_MS)}d`);
      return {};
    };
    const call = {
      ref: { organizationId: 1, agentId: 2, runId: 3 },
      runRef: '1.2.3',
      watchdogSeconds: (40 * DAY_MS) / 1000,
    };
    const sleep = localWait(new AbortController().signal);
    const { result } = machine.run(
      { call },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Dial: task as never,
            EnsureEnded: task as never,
            DialFailed: task as never,
            AwaitCallEnd: sleep as never,
          },
        },
      },
    );
    await vi.advanceTimersByTimeAsync(39 * DAY_MS);
    expect(actions).toEqual(['dial@0d']);
    await vi.advanceTimersByTimeAsync(DAY_MS + 5000);
    await result;
    expect(actions).toEqual(['dial@0d', 'ensureEnded@40d']);
  });
});
