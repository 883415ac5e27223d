import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization, needsLocalStack } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Memories and usage', 5);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Remembering', workflow_definition: { greeting: 'Hi.', steps: [], closing: 'Bye.' } },
    })
  ).body;
});

describe('memories', () => {
  it('adds notes and tasks, fixes and ticks them off, pages and deletes them', async () => {
    const note = await api.request('POST', `/agents/${agent.public_id}/memories`, {
      key: org.key,
      body: { content: 'Prefers mornings', topic: 'preferences' },
    });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({
      id: expect.stringMatching(/^mem_/),
      workflow_id: agent.id,
      due_at: null,
      done: false,
    });
    const task = await api.request('POST', `/agents/${agent.id}/memories`, {
      key: org.key,
      body: { content: 'Call back', due_at: '2026-12-01T09:00:00+01:00' },
    });
    expect(task.body.due_at).toBe('2026-12-01T08:00:00.000Z');

    const fixed = await api.request('PATCH', `/agents/${agent.public_id}/memories/${note.body.id}`, {
      key: org.key,
      body: { content: 'Prefers afternoons' },
    });
    expect(fixed.body).toMatchObject({ content: 'Prefers afternoons', topic: 'preferences' });
    const ticked = await api.request('PATCH', `/agents/${agent.public_id}/memories/${task.body.id}`, {
      key: org.key,
      body: { done: true, due_at: null },
    });
    expect(ticked.body).toMatchObject({ done: true, due_at: null, content: 'Call back' });

    const badDue = await api.request('PATCH', `/agents/${agent.public_id}/memories/${task.body.id}`, {
      key: org.key,
      body: { due_at: 'next week' },
    });
    expect(badDue.status).toBe(422);
    expect(badDue.body.detail[0].loc).toEqual(['body', 'due_at']);
    const noOffset = await api.request('PATCH', `/agents/${agent.public_id}/memories/${task.body.id}`, {
      key: org.key,
      body: { due_at: '2026-12-01T09:00:00' },
    });
    expect(noOffset.status).toBe(422);

    const page = await api.request('GET', `/agents/${agent.public_id}/memories?limit=1`, { key: org.key });
    expect(page.body).toMatchObject({ total_count: 2, total_pages: 2 });

    const stranger = await newOrganization('Memory stranger');
    expect(
      (
        await api.request('PATCH', `/agents/${agent.public_id}/memories/${note.body.id}`, {
          key: stranger.key,
          body: { content: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/memories/${note.body.id}`, { key: org.key })).status,
    ).toBe(204);
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/memories/${note.body.id}`, { key: org.key })).status,
    ).toBe(404);
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/memories/not-a-memory`, { key: org.key })).status,
    ).toBe(422);
  });
});

describe.skipIf(needsLocalStack)('usage and reports', () => {
  it('reports calls, billed minutes and cost per period and agent, also after the runs are deleted', async () => {
    const placed = await Promise.all(
      [daytimeNumber(1, 4), daytimeNumber(7, 4)].map((phone_number) =>
        api.request('POST', `/agents/${agent.public_id}/calls`, { key: org.key, body: { phone_number } }),
      ),
    );
    const runIds = placed.map((response) => response.body.workflow_run_id as number);
    await eventually(
      async () => {
        const runs = await Promise.all(
          runIds.map((id) => api.request('GET', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key })),
        );
        return runs.every((run) => run.body.status !== 'in_progress') ? true : undefined;
      },
      30_000,
      250,
    );

    const usage = await api.request('GET', '/usage?group_by=month', { key: org.key });
    expect(usage.status).toBe(200);
    expect(usage.body.totals).toMatchObject({ calls: 2, answered_calls: 1 });
    expect(usage.body.totals.minutes).toBeGreaterThanOrEqual(1);
    expect(usage.body.totals.cost_usd).toBeGreaterThan(0);
    expect(usage.body.periods).toHaveLength(1);
    expect(usage.body.agents).toEqual([
      expect.objectContaining({ workflow_id: agent.id, workflow_name: 'Remembering', calls: 2 }),
    ]);

    for (const id of runIds)
      expect(
        (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key })).status,
      ).toBe(204);
    const legacy = await api.request('GET', '/organizations/usage?group_by=month', { key: org.key });
    expect(legacy.body.totals).toEqual(usage.body.totals);

    const current = await api.request('GET', '/organizations/usage/current-period', { key: org.key });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ ...usage.body.totals, period_start: usage.body.from });
    const daily = await api.request('GET', '/organizations/usage/daily-breakdown', { key: org.key });
    expect(daily.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(daily.body.days.at(-1)).toEqual({ date: today, ...usage.body.totals });
    expect(daily.body.days.length).toBe(new Date().getUTCDate());
    const billed = await api.request('GET', '/organizations/usage/runs?limit=1', { key: org.key });
    expect(billed.status).toBe(200);
    expect(billed.body).toMatchObject({ page: 1, limit: 1, total_count: 2, total_pages: 2 });
    expect(billed.body.items[0]).toMatchObject({
      run_id: expect.any(Number),
      workflow_id: agent.id,
      billed_minutes: expect.any(Number),
    });
    const legacyCsv = await api.request('GET', '/organizations/usage/runs/report', { key: org.key });
    expect(legacyCsv.headers.get('content-type')).toContain('text/csv');
    expect((parse(legacyCsv.text, { columns: true }) as unknown[]).length).toBe(2);
    expect(
      (await api.request('GET', '/organizations/usage/runs?from=2026-12-01&to=2026-11-01', { key: org.key })).status,
    ).toBe(400);

    const csv = await api.request('GET', '/reports/usage.csv', { key: org.key });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => Number(row.run_id)).sort()).toEqual([...runIds].sort());

    expect((await api.request('GET', '/usage?from=2026-12-01&to=2026-11-01', { key: org.key })).status).toBe(400);
    const invalid = await api.request('GET', '/usage?from=yesterday&group_by=week', { key: org.key });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([
      ['query', 'from'],
      ['query', 'group_by'],
    ]);
    const stranger = await newOrganization('Usage stranger');
    expect((await api.request('GET', '/usage', { key: stranger.key })).body.totals.calls).toBe(0);
  });

  it('serves the campaign report under /reports', async () => {
    const { body: campaign } = await api.request('POST', '/campaigns', {
      key: org.key,
      body: {
        name: 'Reported',
        workflow_id: agent.id,
        source_type: 'manual',
        manual_contacts: [{ phone_number: daytimeNumber(7) }],
      },
    });
    const report = await api.request('GET', `/reports/campaigns/${campaign.id}`, { key: org.key });
    expect(report.body).toMatchObject({
      total_count: 1,
      items: [expect.objectContaining({ row: 1, status: 'pending' })],
    });
    expect((await api.request('GET', '/reports/campaigns/999999', { key: org.key })).status).toBe(404);
  });
});
