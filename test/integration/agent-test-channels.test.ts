/**
 * Live calls first (issue 35): a test run of 50 cases in an organization of few channels finishes,
 * while a live call placed during it still gets a channel. Tests take at most half of the
 * channels (the run's parallelism, and each case connects only while the half kept for live calls
 * stays free: testMayTakeChannel), so a call placed while cases talk is admitted, not 429. The
 * cases are short (one scripted caller turn, no judged criteria) to keep the suite's time.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';

const api = apiClient();
let org: TestOrganization;
let agentRef: string;
const CASES = 50;
/** Two for tests (a run's parallelism is capped there), two kept for live calls. */
const CHANNELS = 4;
const GREETING = 'Hello, North Bank.';

beforeAll(async () => {
  org = await newOrganization('Agent tests, live calls first', CHANNELS);
  const agent = await api.request<{ public_id: string }>('POST', '/agents', {
    key: org.key,
    body: { name: 'North Bank', workflow_definition: { greeting: GREETING, steps: ['How can I help?'] } },
  });
  expect(agent.status, agent.text).toBe(201);
  agentRef = agent.body.public_id;
  const created = await Promise.all(
    Array.from({ length: CASES }, (_, index) =>
      api.request('POST', `/agents/${agentRef}/tests`, {
        key: org.key,
        body: {
          name: `Greets the caller ${index + 1}`,
          caller: { persona: 'Jan', goal: 'Say hello', script: ['Hello'] },
          max_turns: 1,
          expectations: [{ type: 'phrase_said', phrase: GREETING }],
        },
      }),
    ),
  );
  expect(created.map((response) => response.status)).toEqual(Array(CASES).fill(201));
});

describe.skipIf(needsLocalStack)('a test run of 50 cases', () => {
  it('finishes with 50 verdicts while a live call placed during it gets a channel', { timeout: 120_000 }, async () => {
    const started = await api.request<{ id: number; parallelism: number }>('POST', `/agents/${agentRef}/test-runs`, {
      key: org.key,
      body: { parallelism: 10 },
    });
    expect(started.status, started.text).toBe(201);
    // Asked 10 at once, given the channels tests may use.
    expect(started.body.parallelism).toBe(CHANNELS / 2);
    const runPath = `/agents/${agentRef}/test-runs/${started.body.id}`;

    // Once cases are talking (a verdict is in and the run goes on), a live call is placed.
    await vi.waitFor(
      async () => {
        const run = (await api.request('GET', runPath, { key: org.key })).body;
        expect(run.status).toBe('running');
        expect(run.summary.pending).toBeLessThan(CASES);
      },
      { timeout: 60_000, interval: 100 },
    );
    const placedAt = new Date().toISOString();
    // A number that is busy: the call takes its channel at once and gives it back after the ring.
    const call = await api.request('POST', `/agents/${agentRef}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(7) },
    });
    expect(call.status, call.text).toBe(200);

    let run: any;
    await vi.waitFor(
      async () => {
        run = (await api.request('GET', runPath, { key: org.key })).body;
        expect(run.status).not.toBe('running');
      },
      { timeout: 110_000, interval: 250 },
    );
    expect(run.status).toBe('completed');
    expect(run.summary).toMatchObject({ cases: CASES, passed: CASES, failed: 0, errors: 0, pending: 0 });
    const attempts = run.cases.map((item: any) => item.attempts[0]);
    expect(run.cases.map((item: any) => item.verdict)).toEqual(Array(CASES).fill('passed'));
    expect(attempts.map((attempt: any) => attempt.error)).toEqual(Array(CASES).fill(null));
    // The call was placed during the run: cases started after it.
    expect(attempts.filter((attempt: any) => attempt.started_at > placedAt).length).toBeGreaterThan(0);

    // The live call was a call of the organization, placed through the carrier.
    const conversation = await api.request('GET', `/agents/${agentRef}/conversations/${call.body.workflow_run_id}`, {
      key: org.key,
    });
    expect(conversation.body).toMatchObject({ mode: 'phone' });
  });
});
