import { readdirSync, readFileSync } from 'node:fs';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';

const DIRECTORY = new URL('../../statemachines/', import.meta.url);

function definition(file: string): StateMachineDefinition {
  const text = readFileSync(new URL(file, DIRECTORY), 'utf8').replace(
    /\$\{(\w+)FunctionArn\}/g,
    (_m, group: string) => `arn:aws:lambda:us-east-1:000000000000:function:${group}`,
  );
  return JSON.parse(text) as StateMachineDefinition;
}

/** The error the execution failed with (the Fail state's Error is the cause's name). */
async function failureOf(result: Promise<unknown>): Promise<string | undefined> {
  try {
    await result;
  } catch (error) {
    return ((error as Error).cause as Error | undefined)?.name;
  }
  return undefined;
}

const failing = (counter: { calls: number }) => async () => {
  counter.calls += 1;
  throw new Error('boom');
};

describe('failure paths of the state machines', () => {
  it('every Task state of every ASL file has a Catch for States.ALL', () => {
    const files = readdirSync(DIRECTORY).filter((file) => file.endsWith('.asl.json'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      for (const [name, state] of Object.entries(definition(file).States) as [
        string,
        { Type: string; Catch?: { ErrorEquals: string[] }[] },
      ][]) {
        if (state.Type !== 'Task') continue;
        expect(
          state.Catch?.some((c) => c.ErrorEquals.includes('States.ALL')),
          `${file} ${name}`,
        ).toBe(true);
      }
    }
  });

  it('call-lifecycle: a watchdog that cannot end the run fails the execution as CallNotEnded (the sweeper ends the run)', async () => {
    const ensure = { calls: 0 };
    const call = {
      ref: { organizationId: 1, agentId: 2, runId: 3 },
      runRef: '1.2.3',
      to: '+48601234561',
      from: '',
      watchdogSeconds: 1,
    };
    const { result } = new StateMachine(definition('call-lifecycle.asl.json')).run(
      { call },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Dial: async () => ({ callId: 'c' }),
            EnsureEnded: failing(ensure),
            DialFailed: async () => ({}),
          },
          waitTimeOverrides: { AwaitCallEnd: 1 },
          retryIntervalOverrides: { EnsureEnded: 1 },
        },
      },
    );
    expect(await failureOf(result)).toBe('CallNotEnded');
    expect(ensure.calls).toBe(6);
  });

  it('campaign-engine: a step failing every retry is stepped again after the recovery wait, then the campaign goes on', async () => {
    let steps = 0;
    const { result } = new StateMachine(definition('campaign-engine.asl.json')).run(
      { campaign: { organizationId: 1, campaignId: 2 }, generation: 1, part: 0, step: 0 },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Step: async (input) => {
              steps += 1;
              if (steps <= 7) throw new Error('table unavailable');
              // The task answers the next step's input with the step's result (functions/campaign-engine).
              return { ...(input as object), result: { action: 'stop' } };
            },
            ContinueAsNew: async () => ({}),
          },
          retryIntervalOverrides: { Step: 1 },
          waitTimeOverrides: { RecoverStep: 1 },
        },
      },
    );
    await result;
    expect(steps).toBe(8);
  });

  it('webhook-delivery: an attempt failing every retry counts as an attempt; past the limit the execution fails', async () => {
    const attempts: number[] = [];
    const { result } = new StateMachine(definition('webhook-delivery.asl.json')).run(
      { delivery: { id: 'd' }, attempt: 9 },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Attempt: async (input) => {
              attempts.push((input as { attempt: number }).attempt);
              throw new Error('crash');
            },
          },
          retryIntervalOverrides: { Attempt: 1 },
          waitTimeOverrides: { WaitBeforeRetry: 1 },
        },
      },
    );
    expect(await failureOf(result)).toBe('DeliveryAbandoned');
    expect(new Set(attempts)).toEqual(new Set([9, 10]));
  });
});
