import { describe, expect, it } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { CallStartedEvents, withCallerNotes, type CallSetup } from '../../media/src/call-answer.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import { memoriesForCall } from '../../shared/domain/memories.ts';
import type { Memory } from '../../shared/schemas/memories.ts';

const note = (id: string, content: string, contact: string | null): Memory => ({
  id,
  workflow_id: 1,
  content,
  topic: '',
  due_at: null,
  done: false,
  contact,
  created_at: '2026-11-27T00:00:00Z',
  updated_at: '2026-11-27T00:00:00Z',
});

/** A call's setup as call-sessions.ts makes it: the agent's own notes, the caller's added by planWith. */
function setup(): CallSetup {
  const planWith = (callerNotes: readonly Memory[]) =>
    buildCallPlan({
      agentName: 'Remembering',
      workflowDefinition: { greeting: 'Hi {{initial_context.name}}.', prompt: 'Help.' },
      workflowConfigurations: {},
      templateContextVariables: {},
      initialContext: { name: 'Anna' },
      dispositionCodes: {},
      passages: [],
      tools: [],
      memories: memoriesForCall({
        tasks: [],
        callerNotes,
        otherNotes: [note('mem_general', 'Closed on Sundays', null)],
      }),
    });
  return { call: { plan: planWith([]) } as PreparedCall, planWith };
}

describe('a call at its answer: the notes about its caller (read then, not while it rang)', () => {
  it('puts them in the plan, after what the preparation had, and leaves the greeting as prepared', async () => {
    const prepared = setup();
    const reads: string[] = [];
    const call = await withCallerNotes(prepared, async () => {
      reads.push('caller notes');
      return [note('mem_caller', 'Prefers mornings', '+48221234567')];
    });
    expect(reads).toEqual(['caller notes']);
    expect(call.plan.systemPrompt).toContain('Your notes:\n- Prefers mornings\n- Closed on Sundays');
    expect(prepared.call.plan.systemPrompt).not.toContain('Prefers mornings');
    expect(call.plan.settings.firstMessage).toBe('Hi Anna.');
    expect(call.plan.settings.firstMessage).toBe(prepared.call.plan.settings.firstMessage);
  });

  it('keeps the prepared call itself when there are none', async () => {
    const prepared = setup();
    expect(await withCallerNotes(prepared, async () => [])).toBe(prepared.call);
  });
});

describe('call.started events: announced without waiting, waited for by the ending', () => {
  const run = { organization_id: 1, workflow_id: 2, id: 3 };

  /** A bus whose publications settle when the test says. */
  function bus() {
    const pending: { run: typeof run; settle: (error?: Error) => void }[] = [];
    const events = new CallStartedEvents<typeof run>(
      (published) =>
        new Promise<void>((resolve, reject) =>
          pending.push({ run: published, settle: (error) => (error ? reject(error) : resolve()) }),
        ),
    );
    return { events, pending };
  }

  const settledYet = async (promise: Promise<void>) => {
    let settled = false;
    void promise.then(() => (settled = true));
    // Every callback queued so far runs first.
    await new Promise((resolve) => setImmediate(resolve));
    return settled;
  };

  it('publishes at once, and the ending waits until the bus has taken it', async () => {
    const { events, pending } = bus();
    events.announce(run);
    expect(pending.map((entry) => entry.run)).toEqual([run]);
    const ending = events.sent(run);
    expect(await settledYet(ending)).toBe(false);
    pending[0]!.settle();
    expect(await settledYet(ending)).toBe(true);
    // Published: nothing left to wait for.
    expect(await settledYet(events.sent(run))).toBe(true);
  });

  it('lets the ending go on when the event could not be published (best effort), and waits for nothing unannounced', async () => {
    const { events, pending } = bus();
    events.announce(run);
    const ending = events.sent(run);
    pending[0]!.settle(new Error('bus down'));
    await expect(ending).resolves.toBeUndefined();
    expect(await settledYet(events.sent({ ...run, id: 4 }))).toBe(true);
  });
});
