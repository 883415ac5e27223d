import { describe, expect, inject, it, vi } from 'vitest';
import { apiClient, needsLocalStack, newOrganization } from '../support/api.ts';
import { chatUntilEnd } from '../support/flow-chat.ts';

/**
 * Memories with an assistant behind them (issue 36): what a call reads of an agent's memories (open
 * tasks soonest due first, the caller's notes and the others newest first, bounded, ticked-off
 * tasks taking no slot, through the index: no Scan), and a note the agent saves during a
 * conversation (`save_note`).
 */
const api = apiClient();

async function newAgent(key: string) {
  const created = await api.request('POST', '/agents', {
    key,
    body: { name: 'Remembering', workflow_definition: { prompt: 'Help.', closing: 'Bye.' } },
  });
  expect(created.status).toBe(201);
  return created.body as { id: number; public_id: string };
}

describe.skipIf(needsLocalStack)("an agent's memories", () => {
  it('are read for a call by due date, caller and recency, bounded, without ticked-off tasks', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { agentMemories, latestNotes } = await import('../../shared/repositories/memories.ts');
    const { memoriesForCall } = await import('../../shared/domain/memories.ts');
    const org = await newOrganization('Memory reads');
    const agent = await newAgent(org.key);
    const add = async (body: Record<string, unknown>) => {
      const created = await api.request('POST', `/agents/${agent.public_id}/memories`, { key: org.key, body });
      expect(created.status).toBe(201);
      return created.body as { id: string; content: string };
    };
    const caller = '+48221234567';
    // Twelve open tasks due on days 12 … 1 (written latest first), three more ticked off and due first of all.
    for (let day = 12; day >= 1; day -= 1)
      await add({
        content: `Task ${day}`,
        topic: 'task',
        due_at: `2027-01-${String(day + 10).padStart(2, '0')}T09:00:00+00:00`,
      });
    for (const day of [1, 2, 3]) {
      const done = await add({ content: `Done ${day}`, topic: 'task', due_at: `2027-01-0${day}T09:00:00+00:00` });
      const ticked = await api.request('PATCH', `/agents/${agent.public_id}/memories/${done.id}`, {
        key: org.key,
        body: { done: true },
      });
      expect(ticked.status).toBe(200);
    }
    for (let note = 1; note <= 12; note += 1) await add({ content: `General ${note}`, topic: 'note' });
    for (let note = 1; note <= 3; note += 1)
      await add({ content: `About caller ${note}`, topic: 'note', contact: caller });
    await add({ content: 'About someone else', topic: 'note', contact: '+48221234568' });

    const own = await agentMemories(org.organizationId, agent.id);
    const read = memoriesForCall({
      ...own,
      callerNotes: await latestNotes(org.organizationId, agent.id, caller, 10),
    }).map((memory) => memory.content);
    expect(read).toEqual([
      ...Array.from({ length: 10 }, (_, index) => `Task ${index + 1}`),
      'About caller 3',
      'About caller 2',
      'About caller 1',
      ...Array.from({ length: 10 }, (_, index) => `General ${12 - index}`),
    ]);
    // Ticked off again: the task is back in its place; deleted: gone.
    const listed = (await api.request('GET', `/agents/${agent.public_id}/memories?limit=100`, { key: org.key })).body
      .items as { id: string; content: string; contact: string | null }[];
    expect(listed.find((memory) => memory.content === 'About caller 1')?.contact).toBe(caller);
    const task1 = listed.find((memory) => memory.content === 'Task 1')!;
    await api.request('PATCH', `/agents/${agent.public_id}/memories/${task1.id}`, {
      key: org.key,
      body: { done: true },
    });
    expect((await agentMemories(org.organizationId, agent.id)).tasks.map((memory) => memory.content)).toEqual(
      Array.from({ length: 10 }, (_, index) => `Task ${index + 2}`),
    );
  });

  it('gets a note the agent saves during a conversation', { timeout: 60_000 }, async () => {
    const org = await newOrganization('Memory notes');
    const agent = await newAgent(org.key);
    const { run } = await chatUntilEnd(org.key, agent.public_id, [
      'Please remember that I prefer mornings.',
      'Goodbye.',
    ]);
    const notes = (await api.request('GET', `/agents/${agent.public_id}/memories`, { key: org.key })).body.items;
    expect(notes).toEqual([
      expect.objectContaining({
        content: 'I prefer mornings.',
        topic: 'caller',
        due_at: null,
        done: false,
        contact: null,
      }),
    ]);
    expect(run.logs.map((line: { message: string }) => line.message)).toContain(
      'Note saved by the agent: I prefer mornings.',
    );
  });

  it(
    'are written by the assistant with the post-call analysis: notes and a task with due_at, none twice',
    { timeout: 90_000 },
    async () => {
      const org = await newOrganization('Memory assistant');
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Assisted',
          workflow_definition: { prompt: 'Help.', closing: 'Bye.' },
          workflow_configurations: { analysis: { memories: true } },
        },
      });
      expect(created.status).toBe(201);
      const agent = created.body as { public_id: string };
      const analyzedChat = async () => {
        const { run } = await chatUntilEnd(org.key, agent.public_id, ['Please call me back tomorrow.']);
        return vi.waitFor(
          async () => {
            const read = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}`, {
              key: org.key,
            });
            expect(read.body.analysis.status).toBe('completed');
            return read.body;
          },
          { timeout: 30_000, interval: 250 },
        );
      };
      const list = async () =>
        (await api.request('GET', `/agents/${agent.public_id}/memories`, { key: org.key })).body.items as {
          content: string;
          due_at: string | null;
        }[];
      const first = await analyzedChat();
      const written = await list();
      expect(written.map((memory) => memory.content).sort()).toEqual([
        'Call back as promised: Please call me back tomorrow.',
        'The person said: Please call me back tomorrow.',
      ]);
      // The fake model's task is due a day after the call ended, stored in UTC.
      expect(written.find((memory) => memory.due_at)?.due_at).toBe(
        new Date(Date.parse(first.ended_at) + 86_400_000).toISOString(),
      );
      // The same conversation again: the assistant is told what the agent remembers, and nothing repeats.
      await analyzedChat();
      expect((await list()).length).toBe(2);
    },
  );
});
