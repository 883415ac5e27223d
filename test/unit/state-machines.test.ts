import { readFileSync } from 'node:fs';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';

/** The ASL files as deployed, with the Lambda ARNs substituted as CDK does. */
function machine(file: string): StateMachine {
  const text = readFileSync(new URL(`../../statemachines/${file}`, import.meta.url), 'utf8').replace(
    /\$\{(\w+)FunctionArn\}/g,
    (_match, group: string) => `arn:aws:lambda:us-east-1:000000000000:function:${group}`,
  );
  return new StateMachine(JSON.parse(text) as StateMachineDefinition);
}

const call = { ref: { organizationId: 1, agentId: 2, runId: 3 }, runRef: '1.2.3', watchdogSeconds: 3900 };

describe('call-lifecycle.asl.json', () => {
  it('dials, waits for the call to end, then runs the watchdog', async () => {
    const actions: string[] = [];
    const task = async (input: unknown) => {
      actions.push((input as { action: string }).action);
      return { ok: true };
    };
    const { result } = machine('call-lifecycle.asl.json').run(
      { call },
      {
        overrides: {
          taskResourceLocalHandlers: { Dial: task, EnsureEnded: task, DialFailed: task },
          waitTimeOverrides: { AwaitCallEnd: 1 },
        },
      },
    );
    await result;
    expect(actions).toEqual(['dial', 'ensureEnded']);
  });

  it('ends the run as failed when dialing keeps failing, after the retries', async () => {
    const actions: string[] = [];
    let dials = 0;
    const { result } = machine('call-lifecycle.asl.json').run(
      { call },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Dial: async () => {
              dials += 1;
              const error = new Error('provider down');
              error.name = 'ProviderError';
              throw error;
            },
            DialFailed: async (input) => {
              actions.push(`dialFailed:${JSON.stringify((input as { error: unknown }).error)}`);
              return {};
            },
            EnsureEnded: async () => ({}),
          },
          retryIntervalOverrides: { Dial: 1 },
        },
      },
    );
    await result;
    expect(dials).toBe(4);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toContain('provider down');
  });
});

describe('webhook-delivery.asl.json', () => {
  it('attempts again after each retry decision, counting attempts, until delivered', async () => {
    const attempts: number[] = [];
    const { result } = machine('webhook-delivery.asl.json').run(
      { delivery: { messageId: 'msg_1' }, attempt: 1 },
      {
        overrides: {
          taskResourceLocalHandlers: {
            Attempt: async (input) => {
              const { attempt } = input as { attempt: number };
              attempts.push(attempt);
              return attempt < 3 ? { action: 'retry', delaySeconds: 300 } : { action: 'delivered', delaySeconds: 0 };
            },
          },
          waitTimeOverrides: { WaitBeforeRetry: 1 },
        },
      },
    );
    await result;
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('stops at once when the endpoint is disabled or the delivery is gone', async () => {
    for (const action of ['disable_endpoint', 'gone', 'failed']) {
      let calls = 0;
      const { result } = machine('webhook-delivery.asl.json').run(
        { delivery: {}, attempt: 1 },
        {
          overrides: { taskResourceLocalHandlers: { Attempt: async () => ((calls += 1), { action }) } },
        },
      );
      await result;
      expect(calls, action).toBe(1);
    }
  });
});

describe('agent-test-run.asl.json', () => {
  it('runs every attempt at most `parallelism` at once, records a crashed one, then completes the run', async () => {
    const actions: string[] = [];
    let running = 0;
    let most = 0;
    const runCase = async (input: unknown) => {
      const { attempt } = input as { attempt: { case_index: number } };
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      if (attempt.case_index === 1) throw Object.assign(new Error('boom'), { name: 'CaseBroke' });
      actions.push(`run ${attempt.case_index}`);
      return { verdict: 'passed' };
    };
    const { result } = machine('agent-test-run.asl.json').run(
      {
        run: { organization_id: 1, workflow_id: 2, test_run_id: 3 },
        attempts: [0, 1, 2, 3].map((case_index) => ({ case_index })),
        parallelism: 2,
      },
      {
        overrides: {
          taskResourceLocalHandlers: {
            RunCase: runCase,
            CaseCrashed: async (input: unknown) => {
              const { attempt, failure } = input as { attempt: { case_index: number }; failure: { Error: string } };
              actions.push(`crashed ${attempt.case_index} ${failure.Error}`);
              return {};
            },
            Complete: async (input: unknown) => {
              actions.push(`complete ${(input as { run: { test_run_id: number } }).run.test_run_id}`);
              return {};
            },
          },
        },
      },
    );
    await result;
    expect(most).toBe(2);
    expect(actions.toSorted()).toEqual(['complete 3', 'crashed 1 CaseBroke', 'run 0', 'run 2', 'run 3']);
    expect(actions.at(-1)).toBe('complete 3');
  });
});
