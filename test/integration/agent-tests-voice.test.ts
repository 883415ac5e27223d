/**
 * A voice test case on the local stack (issue 35), over both of its lines: a phone call through
 * the local Twilio to the caller's handset (the local stack's route) and a voice session of the
 * media service (AWS's). Its caller's turns are said by the local ElevenLabs and the agent's audio
 * heard by the local Deepgram (the same clients as on AWS), so the attempt's transcript is what the
 * caller heard: the greeting whole, an answer the interrupting caller cut only as far as it played,
 * keys pressed, and each turn's latency. The line runs at the tests' pace. An organization whose own
 * telephony is Telnyx has its case's call placed through the local Telnyx to the same handsets.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';

const api = apiClient();
let org: TestOrganization;
let agentId: string;

const GREETING = 'North Clinic, hello.';
/** The agent's first answer (its conversation plan's first step, as the local model says it): long enough to be cut. */
const LONG_ANSWER =
  'We have free visits on Monday at nine, on Tuesday at ten, on Wednesday at eleven, on Thursday at noon and on Friday at one, and every one of them is with doctor Nowak, who has been with the clinic for twenty years.';

beforeAll(async () => {
  org = await newOrganization('Voice agent tests', 6);
  const created = await api.request<{ public_id: string }>('POST', '/agents', {
    key: org.key,
    body: {
      name: 'North Clinic',
      // The caller's line runs on the wall clock: a loaded machine's slow speech must not read as the caller's silence.
      workflow_configurations: { silence_timeout_seconds: 60 },
      workflow_definition: {
        prompt: 'You book visits at North Clinic.',
        greeting: GREETING,
        steps: [LONG_ANSWER, 'Your visit is booked for Monday.'],
      },
    },
  });
  expect(created.status, created.text).toBe(201);
  agentId = created.body.public_id;
  // The local model calls it when the caller's words name it ("slots"); the case answers it from a mock.
  const tool = await api.request('POST', `/agents/${agentId}/tools`, {
    key: org.key,
    body: { name: 'find_slots', description: 'Free slots on a day', method: 'GET', url: 'http://127.0.0.1:9/slots' },
  });
  expect(tool.status, tool.text).toBe(201);
});

/** The case both routes run: an interrupting caller who names a tool (answered from a mock) and presses keys. */
async function createVoiceCase(name: string): Promise<string> {
  const testCase = await api.request<{ id: string; mode: string }>('POST', `/agents/${agentId}/tests`, {
    key: org.key,
    body: {
      name,
      mode: 'voice',
      caller: {
        persona: 'Ewa, in a hurry',
        goal: 'A visit on Monday',
        behaviour: ['interrupts'],
        script: ['I would like a visit.', 'Any slots on Monday?', '[pressed 42#]'],
      },
      tool_mocks: [{ tool: 'find_slots', body: { slots: ['Monday 9:00'] } }],
      max_turns: 3,
      timeout_seconds: 60,
      expectations: [
        { type: 'phrase_said', phrase: GREETING },
        // Cut by the caller: its end never played, so the caller never heard it.
        { type: 'phrase_said', phrase: 'twenty years', said: false },
        { type: 'ended_by_agent' },
        // Over a phone line heard on the call's live listen (a stream carries audio only); over a session, in its frames.
        { type: 'tool_called', tool: 'find_slots' },
      ],
    },
  });
  expect(testCase.status, testCase.text).toBe(201);
  expect(testCase.body.mode).toBe('voice');
  return testCase.body.id;
}

/** What the caller heard and what the case concluded, the same over either route; the attempt's conversation id. */
function expectHeardAsCaller(run: any): number {
  const attempt = run.cases[0].attempts[0];
  expect(attempt.error).toBeNull();
  expect(
    attempt.expectations.map((result: { passed: boolean; reason: string }) => [result.passed, result.reason]),
  ).toEqual([
    [true, expect.any(String)],
    [true, expect.any(String)],
    [true, expect.any(String)],
    [true, expect.any(String)],
  ]);
  // The tool answered from the case's mock (a call is set up from its run, not prepared while it rang), then the agent hung up.
  expect(attempt.tool_calls.map((call: { name: string }) => call.name)).toEqual(['find_slots', 'end_call']);
  expect(attempt.tool_calls[0].result).toBe(
    JSON.stringify({ status: 200, body: JSON.stringify({ slots: ['Monday 9:00'] }) }),
  );
  expect(run.cases[0].verdict).toBe('passed');
  const heard = attempt.transcript.map((line: { role: string; text: string }) => `${line.role}: ${line.text}`);
  expect(heard[0]).toBe(`assistant: ${GREETING}`);
  expect(heard[1]).toBe('user: I would like a visit.');
  // The long answer, as far as it played before the caller talked over it.
  // (Where the cut falls is the barge-in's timing: over the phone line it falls around "Monday", so the first words are what is certain.)
  expect(heard[2]).toMatch(/^assistant: We have free visits on /);
  expect(LONG_ANSWER.startsWith(heard[2].slice('assistant: '.length))).toBe(true);
  expect(heard).toContain('user: Any slots on Monday?');
  expect(heard).toContain('user: [pressed 42#]');
  expect(attempt.turn_latencies_ms).toHaveLength(3);
  for (const latency of attempt.turn_latencies_ms) expect(latency).toBeGreaterThanOrEqual(0);
  return attempt.conversation_id;
}

const conversationOf = async (id: number) =>
  (await api.request('GET', `/agents/${agentId}/conversations/${id}`, { key: org.key })).body;

// The two routes at once: the phone call's runner is the stack's, the session's this worker's (its own environment).
describe.concurrent('a voice test case', () => {
  it('hears the agent as the caller would: cut by the caller, keys pressed, latency per turn', async () => {
    const testId = await createVoiceCase('Books a visit by voice');
    const started = await api.request<{ id: number }>('POST', `/agents/${agentId}/test-runs`, {
      key: org.key,
      body: { test_ids: [testId], parallelism: 1 },
    });
    expect(started.status, started.text).toBe(201);
    let run: any;
    await vi.waitFor(
      async () => {
        run = (await api.request('GET', `/agents/${agentId}/test-runs/${started.body.id}`, { key: org.key })).body;
        expect(run.status).not.toBe('running');
      },
      { timeout: 60_000, interval: 250 },
    );
    const conversationId = expectHeardAsCaller(run);

    // The conversation was a phone call of the tested agent, placed through the local Twilio to the caller's handset.
    const conversation = await conversationOf(conversationId);
    expect(conversation).toMatchObject({
      mode: 'phone',
      status: 'completed',
      phone_number: expect.stringMatching(/^\+1555\d{7}$/),
    });
    expect(JSON.stringify(conversation.logs)).toContain('answered');
  }, 90_000);

  it('talks over a voice session of the media service, the route AWS takes, hearing the same', async () => {
    const testId = await createVoiceCase('Books a visit in a voice session');
    // The runner itself, here, with the local-only handsets setting unset for this attempt (as on
    // AWS, where the stack never sets it): the stack's runner would take the local carrier.
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { insertTestRun } = await import('../../shared/repositories/agent-tests.ts');
    const { runAttempt } = await import('../../shared/services/agent-test-runner.ts');
    const { completeTestRun } = await import('../../shared/services/agent-test-runs.ts');
    const { callerLine } = await import('../../functions/agent-test-runner/caller-line.ts');
    const agent = (await api.request('GET', `/agents/${agentId}`, { key: org.key })).body;
    const ref = {
      organization_id: org.organizationId,
      workflow_id: agent.id,
      test_run_id: await nextId('testRun'),
      case_index: 0,
      test_id: testId,
      attempt: 1,
    };
    await insertTestRun(org.organizationId, {
      id: ref.test_run_id,
      organization_id: ref.organization_id,
      workflow_id: ref.workflow_id,
      definition_id: agent.current_definition_id,
      status: 'running',
      cases: [{ index: 0, test_id: testId, name: 'Books a visit in a voice session' }],
      repeat: 1,
      parallelism: 1,
      created_at: new Date().toISOString(),
      completed_at: null,
    });
    const handsets = process.env.TEST_CALLER_HANDSETS_URL;
    expect(handsets).toBeTruthy();
    delete process.env.TEST_CALLER_HANDSETS_URL;
    try {
      expect(await runAttempt(ref, { callerLine })).toEqual({ verdict: 'passed' });
    } finally {
      process.env.TEST_CALLER_HANDSETS_URL = handsets;
    }
    await completeTestRun(ref);
    const run = (await api.request('GET', `/agents/${agentId}/test-runs/${ref.test_run_id}`, { key: org.key })).body;
    expect(run.status).toBe('completed');
    const conversationId = expectHeardAsCaller(run);

    // The conversation was a voice session of the tested agent: no number, no carrier.
    const conversation = await conversationOf(conversationId);
    expect(conversation).toMatchObject({
      mode: 'webrtc',
      status: 'completed',
      definition_id: agent.current_definition_id,
    });
    expect(conversation.phone_number ?? null).toBeNull();
  }, 90_000);

  it("calls the caller's handset through the local Telnyx for an organization whose own telephony is Telnyx", async () => {
    const telnyxOrg = await newOrganization('Voice agent tests over Telnyx', 2);
    const callerId = '+442079460561';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(telnyxOrg, account, callerId)).status).toBe(200);
    const agent = await api.request<{ public_id: string }>('POST', '/agents', {
      key: telnyxOrg.key,
      body: { name: 'North Clinic', workflow_definition: { prompt: 'You book visits.', greeting: GREETING } },
    });
    expect(agent.status, agent.text).toBe(201);
    const path = `/agents/${agent.body.public_id}`;
    const testCase = await api.request<{ id: string }>('POST', `${path}/tests`, {
      key: telnyxOrg.key,
      body: {
        name: 'Says goodbye over Telnyx',
        mode: 'voice',
        caller: { persona: 'Ewa', goal: 'Goodbye', script: ['Thank you, goodbye.'] },
        max_turns: 1,
        timeout_seconds: 60,
        expectations: [{ type: 'phrase_said', phrase: GREETING }, { type: 'ended_by_agent' }],
      },
    });
    expect(testCase.status, testCase.text).toBe(201);
    const started = await api.request<{ id: number }>('POST', `${path}/test-runs`, {
      key: telnyxOrg.key,
      body: { test_ids: [testCase.body.id] },
    });
    expect(started.status, started.text).toBe(201);
    let run: any;
    await vi.waitFor(
      async () => {
        run = (await api.request('GET', `${path}/test-runs/${started.body.id}`, { key: telnyxOrg.key })).body;
        expect(run.status).not.toBe('running');
      },
      { timeout: 60_000, interval: 250 },
    );
    const attempt = run.cases[0].attempts[0];
    expect(attempt.error).toBeNull();
    expect(run.cases[0].verdict).toBe('passed');
    expect(attempt.transcript.map((line: { role: string; text: string }) => `${line.role}: ${line.text}`)).toEqual([
      `assistant: ${GREETING}`,
      'user: Thank you, goodbye.',
      expect.stringMatching(/^assistant: /),
    ]);
    // The conversation was a phone call, placed through the organization's own account at the local Telnyx.
    const conversation = (
      await api.request('GET', `${path}/conversations/${attempt.conversation_id}`, { key: telnyxOrg.key })
    ).body;
    expect(conversation).toMatchObject({
      mode: 'phone',
      status: 'completed',
      phone_number: expect.stringMatching(/^\+1555\d{7}$/),
    });
    expect((await account.stats()).calls_created_at).toHaveLength(1);
  }, 90_000);
});
