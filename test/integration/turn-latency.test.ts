import { beforeAll, describe, expect, inject, it } from 'vitest';
import { LATENCY_COMPONENTS } from '../../shared/domain/call-latency.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

/** Each turn's latency on the run when the call ends, and in the agent's day (docs/voice-agent.md#latency-of-each-turn). */
const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Turn latency', 2);
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Timed',
      workflow_definition: {
        greeting: 'Hi {{initial_context.name}}, Smile clinic here.',
        prompt: 'You book dental visits.',
        // The local model follows its plan, then ends the call: one step per turn of the simulated caller.
        steps: ['Would you like to book a visit?', 'Anything else?', 'Shall I book it?'],
      },
      call_disposition_codes: { booked: 'Visit booked' },
    },
  });
  expect(created.status).toBe(201);
  agent = created.body;
  const tool = await api.request('POST', `/agents/${agent.public_id}/tools`, {
    key: org.key,
    body: {
      name: 'check_availability',
      description: 'Free slots on a day',
      method: 'GET',
      url: 'https://93.184.215.14/availability',
      parameters: { properties: { day: { type: 'string' } }, required: ['day'] },
    },
  });
  expect(tool.status).toBe(201);
});

const DAY_MS = 86_400_000;
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

/** The agent's latency over yesterday to tomorrow (a call ending at midnight UTC counts on its day). */
const agentLatency = (query = '') =>
  api.request('GET', `/usage/latency?from=${day(-1)}&to=${day(2)}&agent_id=${agent.public_id}${query}`, {
    key: org.key,
  });

describe.skipIf(needsLocalStack)("each turn's latency (local provider fakes)", () => {
  it(
    "is on the run once the call ends, in the agent's day, and goes with the run when it is deleted",
    { timeout: 60_000 },
    async () => {
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(2, 3), initial_context: { name: 'Anna' } },
      });
      expect(placed.status).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      const runPath = `/agents/${agent.public_id}/conversations/${runId}`;
      const run = await eventually(async () => {
        const response = await api.request('GET', runPath, { key: org.key });
        return response.body.status !== 'in_progress' && response.body.latency ? response.body : undefined;
      }, 40_000);
      expect(run.status).toBe('completed');

      // The simulated caller's four turns: a greeting first, each turn answered by speech.
      const { latency } = run;
      expect(latency.greeting_ms).toEqual(expect.any(Number));
      expect(latency.turns.map((turn: { turn: number }) => turn.turn)).toEqual([1, 2, 3, 4]);
      for (const [index, turn] of latency.turns.entries()) {
        for (const component of ['transcription_ms', 'endpointing_ms', 'model_ms', 'text_to_speech_ms', 'overhead_ms'])
          expect(turn[component], `turn ${index + 1}: ${component}`).toEqual(expect.any(Number));
        expect(turn.voice_to_voice_ms).toBeGreaterThan(0);
        // Each from the mark before it: together they are voice-to-voice.
        const parts = LATENCY_COMPONENTS.filter((component) => component !== 'voice_to_voice_ms').map(
          (component) => turn[component] ?? 0,
        );
        expect(parts.reduce((sum, value) => sum + value, 0)).toBe(turn.voice_to_voice_ms);
        if (index > 0) expect(turn.at_ms).toBeGreaterThan(latency.turns[index - 1].at_ms);
      }
      // "Please check availability for tomorrow.": the tool is timed, from the end of the caller's speech.
      const [lookup] = latency.turns[2].tools;
      expect(lookup).toEqual({
        name: 'check_availability',
        start_ms: expect.any(Number),
        duration_ms: expect.any(Number),
      });
      expect(lookup.start_ms).toBeGreaterThanOrEqual(latency.turns[2].transcription_ms);
      expect(latency.turns[2].tools_ms).toEqual(expect.any(Number));
      expect(latency.turns[0].tools_ms).toBeNull();
      const voiceToVoice = latency.turns
        .map((turn: { voice_to_voice_ms: number }) => turn.voice_to_voice_ms)
        .sort((a: number, b: number) => a - b);
      expect(latency.summary).toMatchObject({
        turn_count: 4,
        voice_to_voice_ms: { p50: voiceToVoice[1], p95: voiceToVoice[3] },
      });

      // The agent's day holds the call's turns.
      const report = await agentLatency();
      expect(report.status).toBe(200);
      expect(report.body).toMatchObject({ from: day(-1), to: day(2), group_by: 'day' });
      const counted = (body: { items: { agent_id: number; turn_count: number }[] }) =>
        body.items.reduce((sum, item) => sum + item.turn_count, 0);
      expect(counted(report.body)).toBe(4);
      expect(report.body.items[0]).toMatchObject({
        agent_id: agent.id,
        voice_to_voice_ms: { p50: expect.any(Number), p95: expect.any(Number) },
        tools_ms: { p50: expect.any(Number), p95: expect.any(Number) },
      });
      const months = await agentLatency('&group_by=month');
      expect(months.body.items.map((item: { period: string }) => item.period)).toEqual(
        [...new Set([day(-1), day(0), day(1)].map((date) => date.slice(0, 7)))].filter((month) =>
          report.body.items.some((item: { period: string }) => item.period.startsWith(month)),
        ),
      );

      // Deleting the run deletes its latency (run content); the agent's histograms hold none and stay.
      expect((await api.request('DELETE', runPath, { key: org.key })).status).toBe(204);
      expect((await api.request('GET', runPath, { key: org.key })).status).toBe(404);
      Object.assign(process.env, inject('stackEnv'));
      const { getRun } = await import('../../shared/repositories/runs-read.ts');
      expect(await getRun(org.organizationId, agent.id, runId)).toBeUndefined();
      expect(counted((await agentLatency()).body)).toBe(4);
    },
  );

  it('refuses a reversed or too long range, and an agent of no one', async () => {
    const get = (query: string) => api.request('GET', `/usage/latency?${query}`, { key: org.key });
    expect((await get(`from=${day(1)}&to=${day(0)}`)).status).toBe(400);
    expect((await get('from=2025-01-01&to=2026-06-01')).status).toBe(400);
    expect((await get('agent_id=agent_AAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await get('group_by=week')).status).toBe(422);
    const other = await newOrganization('Turn latency, someone else');
    const theirs = await api.request('GET', `/usage/latency?from=${day(-1)}&to=${day(2)}`, { key: other.key });
    expect(theirs.body).toMatchObject({ items: [] });
  });
});
