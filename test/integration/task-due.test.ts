/**
 * Tasks that come due (issue 36): the scheduled function (every second on the test stack) sends
 * `task.due` once per task, calls the task's contact when the agent allows it (`call_due_tasks`)
 * and not otherwise, and a repeated run places no second call; `memory.created` goes for each task
 * written through the API. Memories stored before the due index come due once the operator's
 * migration (`tasks backfill-due`) has run, and a rerun changes nothing.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
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

  it('brings memories stored before the due index into it once (tasks backfill-due)', async () => {
    const org = await newOrganization('Due backfill');
    const sink = await receivers.start();
    const webhook = await api.request('POST', '/webhooks', {
      key: org.key,
      body: { url: sink.url, events: ['task.due'] },
    });
    expect(webhook.status).toBe(201);
    const agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Old memories' } })).body as {
      id: number;
      public_id: string;
    };
    Object.assign(process.env, inject('stackEnv'));
    const { db, tableName } = await import('../../shared/repositories/table.ts');
    const { keys } = await import('../../shared/repositories/keys.ts');
    const { dueEntries } = await import('../../shared/repositories/due-tasks.ts');
    const memories = await import('../../shared/repositories/memories.ts');
    const { backfillDueTasks } = await import('../../shared/services/memories.ts');

    // Memories as a release before the due index (and the call index) wrote them: no index keys, no due entry.
    const stored = '2024-06-01T10:00:00.000Z';
    const legacy = (id: string, due_at: string | null, done = false) => ({
      id: `mem_${id}`,
      workflow_id: agent.id,
      content: `Old ${id}`,
      topic: '',
      due_at,
      done,
      contact: null,
      created_at: stored,
      updated_at: stored,
    });
    const overdue = legacy('overdue', new Date(Date.now() - 60_000).toISOString());
    const later = legacy('later', '2030-01-01T09:00:00.000Z');
    const armedMeanwhile = legacy('armed', '2030-02-01T09:00:00.000Z');
    const longAgo = legacy('longago', '2024-07-01T09:00:00.000Z');
    const ticked = legacy('ticked', '2024-07-01T09:00:00.000Z', true);
    const note = legacy('note', null);
    for (const memory of [overdue, later, armedMeanwhile, longAgo, ticked, note])
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.memory(org.organizationId, agent.id, memory.id), type: 'memory', ...memory },
        }),
      );
    // One already has an entry on its way (a call being retried): the migration keeps it as it is.
    const entryOnItsWay = {
      ...keys.dueTask(org.organizationId, agent.id, armedMeanwhile.id),
      ...keys.dueTaskIndex(org.organizationId, agent.id, armedMeanwhile.id, '2030-02-01T09:05:00.000Z'),
      type: 'task_due',
      organization_id: org.organizationId,
      agent_id: agent.id,
      memory_id: armedMeanwhile.id,
      due_at: armedMeanwhile.due_at,
      phase: 'call',
      attempts: 3,
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: entryOnItsWay }));
    const entriesOf = async () =>
      (await dueEntries('2031-01-01T00:00:00.000Z', 1000))
        .filter((entry) => entry.organizationId === org.organizationId)
        .map((entry) => `${entry.memoryId} ${entry.entry.phase} ${entry.entry.attempts}`)
        .sort();
    // Before: nothing of theirs would come due, and a call reads none of them.
    expect(await entriesOf()).toEqual([`${armedMeanwhile.id} call 3`]);
    expect(await memories.agentMemories(org.organizationId, agent.id)).toEqual({ tasks: [], otherNotes: [] });
    // A memory written since it was read (another updated_at) is left to that write.
    expect(
      await memories.backfillDueIndex(org.organizationId, { ...overdue, updated_at: stored.replace('10', '11') }, true),
    ).toBe('skipped');

    const first = await backfillDueTasks({ dueAfter: new Date('2025-01-01T00:00:00Z') });
    expect(first).toMatchObject({ armed: expect.any(Number), skipped: 0 });
    expect(first.armed).toBeGreaterThanOrEqual(2);
    expect(first.indexed).toBeGreaterThanOrEqual(4);
    // The overdue task comes due at the schedule's next run (every second on the test stack), once.
    const due = await eventually(
      () => {
        const announced = sink.received
          .map((hook) => JSON.parse(hook.body))
          .filter((event) => event.type === 'task.due');
        return announced.length ? announced : undefined;
      },
      15_000,
      100,
    );
    expect(due.map((event) => event.data.memory)).toEqual([overdue]);
    await eventually(async () => ((await entriesOf()).includes(`${overdue.id} announce 0`) ? undefined : true));
    expect(await entriesOf()).toEqual([`${armedMeanwhile.id} call 3`, `${later.id} announce 0`]);
    // A call reads them now: the open tasks soonest due first (the one due long ago, unannounced, too), the note.
    const read = await memories.agentMemories(org.organizationId, agent.id);
    expect(read.tasks.map((memory) => memory.id)).toEqual([longAgo.id, overdue.id, later.id, armedMeanwhile.id]);
    expect(read.otherNotes.map((memory) => memory.id)).toEqual([note.id]);
    const item = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.memory(org.organizationId, agent.id, ticked.id) }),
    );
    expect(item.Item).toMatchObject({ due_indexed: true, updated_at: stored });
    expect(item.Item).not.toHaveProperty('gsi1pk');
    // The API never shows the mark.
    const listed = await api.request('GET', `/agents/${agent.public_id}/memories?limit=100`, { key: org.key });
    expect(listed.body.items.find((memory: { id: string }) => memory.id === ticked.id)).toEqual(ticked);

    // A rerun finds nothing left (every memory written through the API carries the mark too).
    expect(await backfillDueTasks()).toEqual({ found: 0, armed: 0, indexed: 0, skipped: 0 });
    expect(await entriesOf()).toEqual([`${armedMeanwhile.id} call 3`, `${later.id} announce 0`]);
  });
});
