/**
 * Tasks that come due (issue 36): the scheduled function (every second on the test stack) sends
 * `task.due` once per task, calls the task's contact when the agent allows it (`call_due_tasks`)
 * and not otherwise, and a repeated run places no second call; `memory.created` goes for each task
 * written through the API.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually, webhookReceivers } from '../support/webhook-receiver.ts';

const api = apiClient();
const receivers = webhookReceivers();
afterAll(() => receivers.closeAll());

describe.skipIf(needsLocalStack)('a task that comes due', () => {
  it('sends task.due once, and calls its contact only when the agent allows it', { timeout: 60_000 }, async () => {
    const org = await newOrganization('Due tasks');
    const sink = await receivers.start();
    const webhook = await api.request('POST', '/webhooks', {
      key: org.key,
      body: { url: sink.url, events: ['task.due', 'memory.created'] },
    });
    expect(webhook.status).toBe(201);
    const agentWith = async (name: string, configurations: Record<string, unknown>) => {
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: { name, workflow_definition: { prompt: 'Help.' }, workflow_configurations: configurations },
      });
      expect(created.status).toBe(201);
      return created.body as { id: number; public_id: string };
    };
    const calling = await agentWith('Calls back', { call_due_tasks: true });
    const quiet = await agentWith('Reminds only', {});
    // Due a minute ago, in an offset other than UTC; the contact is busy (last digit 7): the call ends at once.
    const dueAt = new Date(Date.now() - 60_000);
    const withOffset = `${new Date(dueAt.getTime() + 3_600_000).toISOString().slice(0, 19)}+01:00`;
    const contact = daytimeNumber(7);
    const task = async (agent: { public_id: string }, due = withOffset) => {
      const created = await api.request('POST', `/agents/${agent.public_id}/memories`, {
        key: org.key,
        body: { content: 'Call back about the appointment', topic: 'callback', due_at: due, contact },
      });
      expect(created.status).toBe(201);
      return created.body as { id: string; due_at: string };
    };
    const [callingTask, quietTask] = [await task(calling), await task(quiet)];
    expect(callingTask.due_at).toBe(new Date(Math.floor(dueAt.getTime() / 1000) * 1000).toISOString());

    const events = () => sink.received.map((hook) => JSON.parse(hook.body) as { type: string; data: any });
    const due = await eventually(
      () => {
        const announced = events().filter((event) => event.type === 'task.due');
        return announced.length === 2 ? announced : undefined;
      },
      30_000,
      200,
    );
    expect(
      due.map((event) => [event.data.memory.id, event.data.call_requested]).sort(([a], [b]) => a.localeCompare(b)),
    ).toEqual(
      [
        [callingTask.id, true],
        [quietTask.id, false],
      ].sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    expect(due[0]!.data.memory).toMatchObject({ due_at: callingTask.due_at, contact, done: false });
    expect(
      events()
        .filter((event) => event.type === 'memory.created')
        .map((event) => event.data),
    ).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ memory: expect.objectContaining({ id: callingTask.id }), created_by: 'api' }),
        expect.objectContaining({ memory: expect.objectContaining({ id: quietTask.id }), workflow_run_id: null }),
      ]),
    );

    const runsOf = async (agent: { public_id: string }) =>
      (await api.request('GET', `/agents/${agent.public_id}/conversations`, { key: org.key })).body.items as {
        id: number;
        initial_context: Record<string, unknown>;
      }[];
    const [call] = await eventually(async () => {
      const runs = await runsOf(calling);
      return runs.length ? runs : undefined;
    });
    const run = (await api.request('GET', `/agents/${calling.public_id}/conversations/${call!.id}`, { key: org.key }))
      .body;
    expect(run).toMatchObject({
      phone_number: contact,
      initial_context: { task_id: callingTask.id, task: 'Call back about the appointment' },
    });

    // Both entries are done (none of this organization's is left); another run changes nothing.
    Object.assign(process.env, inject('stackEnv'));
    const { dueEntries } = await import('../../shared/repositories/due-tasks.ts');
    const { runDueTasks } = await import('../../shared/services/due-tasks.ts');
    const { placeCallOnce } = await import('../../shared/services/idempotent-calls.ts');
    const entriesOf = async () =>
      (await dueEntries('2031-01-01T00:00:00.000Z', 1000))
        .filter((entry) => entry.organizationId === org.organizationId)
        .map((entry) => entry.memoryId);
    await eventually(async () => ((await entriesOf()).length ? undefined : true));
    await runDueTasks();
    expect((await runsOf(calling)).map((listed) => listed.id)).toEqual([call!.id]);
    expect(await runsOf(quiet)).toEqual([]);
    expect(events().filter((event) => event.type === 'task.due')).toHaveLength(2);
    // A placement repeated after a crash (the call placed, its entry not yet removed) is the same call.
    const again = await placeCallOnce(
      org.organizationId,
      `task-due:${callingTask.id}:${callingTask.due_at}`,
      String(calling.id),
      { phone_number: contact, initial_context: { task_id: callingTask.id, task: 'Call back about the appointment' } },
    );
    expect(again.workflow_run_id).toBe(call!.id);

    // A task due later has its entry until it is ticked off (then it never comes due).
    const later = await task(quiet, '2030-01-01T09:00:00+00:00');
    expect(await entriesOf()).toEqual([later.id]);
    const ticked = await api.request('PATCH', `/agents/${quiet.public_id}/memories/${later.id}`, {
      key: org.key,
      body: { done: true },
    });
    expect(ticked.status).toBe(200);
    expect(await entriesOf()).toEqual([]);
  });
});
