import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { AGENT_SETUP_REUSE_MS } from '../../media/src/call-sessions.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

const api = apiClient();
let org: TestOrganization;

beforeEach(async () => {
  // One channel: a second call is admitted only once the first has released it. An organization
  // per test: a call one test leaves running (its own failure) holds only that test's channel,
  // never the next tests' (they got 429 after a call that did not end).
  org = await newOrganization('Voice agent', 1);
});

async function createAgent(name: string) {
  const agent = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name,
      workflow_definition: {
        greeting: 'Hi {{initial_context.name}}, Smile clinic here.',
        prompt: 'You book dental visits.',
        steps: ['Would you like to book a visit?', 'Anything else?', 'Shall I book it?'],
      },
      call_disposition_codes: { booked: 'Visit booked', not_interested: 'Not interested' },
      workflow_configurations: { language: 'en', temperature: 0.2, silence_timeout_seconds: 6 },
    },
  });
  expect(agent.status).toBe(201);
  return agent.body as { id: number; public_id: string };
}

/** The run once it has ended; a run still in progress after 40 s fails with what its logs say it did last. */
async function finishedRun(agentId: string, runId: number) {
  const read = () => api.request('GET', `/agents/${agentId}/conversations/${runId}`, { key: org.key });
  try {
    return await eventually(async () => {
      const run = await read();
      return run.body.status !== 'in_progress' ? run.body : undefined;
    }, 40_000);
  } catch (error) {
    const { logs = [] } = (await read()).body as { logs?: { message: string }[] };
    throw new Error(
      `Run ${runId} still in progress after 40 s; its last logs: ${JSON.stringify(logs.slice(-8).map((log) => log.message))}`,
      { cause: error },
    );
  }
}

/** Calls Anna at `phoneNumber` from the agent and gives the run once it has ended. */
async function endedCall(agentId: string, phoneNumber: string) {
  const placed = await api.request('POST', `/agents/${agentId}/calls`, {
    key: org.key,
    body: { phone_number: phoneNumber, initial_context: { name: 'Anna' } },
  });
  expect(placed.status).toBe(200);
  return finishedRun(agentId, placed.body.workflow_run_id);
}

/**
 * The last line the call itself logged. Answering-machine detection's verdict comes on the
 * provider's own schedule (seconds after the answer) and is logged whenever the run is still open,
 * so it may land after a call's last words while the call is being ended.
 */
const lastCallLog = (run: { logs: { level: string; message: string }[] }) =>
  run.logs.filter((log) => !log.message.startsWith('Answering-machine detection: ')).at(-1)!;

/** The run's transcript as `role: text` lines. */
async function transcriptLines(agentId: string, runId: number): Promise<string[]> {
  const transcript = await api.request('GET', `/agents/${agentId}/conversations/${runId}/transcript`, { key: org.key });
  return transcript.body.segments.map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`);
}

/** Makes the local fake model answer 500 to every request whose system prompt holds `text`. */
async function failModelWhenPromptHolds(text: string) {
  const { LLM_API_URL: modelUrl, LLM_API_KEY: modelKey } = inject('stackEnv');
  const armed = await fetch(new URL('../fake/faults', `${modelUrl}/`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${modelKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ system_contains: text }),
  });
  expect(armed.status).toBe(204);
}

describe.skipIf(needsLocalStack)('a call held by the voice agent (local provider fakes)', () => {
  it(
    'hears the caller, answers from the knowledge base, calls a tool, and chooses a disposition',
    { timeout: 60_000 },
    async () => {
      const agent = await createAgent('Smile voice');
      expect(agent).toMatchObject({
        workflow_configurations: { language: 'en', temperature: 0.2, silence_timeout_seconds: 6 },
      });
      const document = await api.request('POST', `/agents/${agent.public_id}/knowledge-base/documents`, {
        key: org.key,
        body: { title: 'Hours', content: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
      });
      expect(document.status).toBe(201);
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

      const run = await endedCall(agent.public_id, daytimeNumber(2, 1));
      expect(run).toMatchObject({ status: 'completed', gathered_context: { call_disposition: 'booked' } });

      const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
        key: org.key,
      });
      expect(
        transcript.body.segments.map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`),
      ).toEqual([
        'assistant: Hi Anna, Smile clinic here.',
        'user: Hello, who is this?',
        'assistant: Would you like to book a visit?',
        'user: What are your opening hours?',
        'assistant: According to our information, Opening hours: Monday to Friday, 8:00 to 16:00.',
        'user: Please check availability for tomorrow.',
        expect.stringMatching(/^assistant: Done: \{"status":200,"body":"\{\\"ok\\":true/),
        'user: Thank you, goodbye.',
        'assistant: Thank you for your time. Goodbye.',
      ]);
      // Each line spans the time it was spoken, in order.
      const spans = transcript.body.segments.map(({ start, end }: { start: string; end: string }) => [
        Date.parse(start),
        Date.parse(end),
      ]);
      for (const [index, [start, end]] of spans.entries()) {
        expect(end).toBeGreaterThan(start);
        if (index > 0) expect(start).toBeGreaterThanOrEqual(spans[index - 1][1]);
      }
      const messages = run.logs.map((log: { message: string }) => log.message);
      expect(messages).toEqual(
        expect.arrayContaining([
          'Call answered',
          expect.stringMatching(/^Knowledge used for "What are your opening hours\?": \[Hours\] Opening hours/),
          expect.stringMatching(
            /^Tool check_availability called with \{"day":"Please check availability for tomorrow\."\}: \{"status":200/,
          ),
          'Disposition chosen by the agent: booked',
        ]),
      );
    },
  );

  it(
    'hears the keys a callee presses on its phone (the local callee at a number ending in 346 enters 1234#)',
    { timeout: 60_000 },
    async () => {
      const agent = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Account line',
          workflow_definition: {
            greeting: 'Please enter your account number, then the hash key.',
            steps: ['Thank you, I found your account.'],
          },
          workflow_configurations: { keypad: { collect_digits: 8, end_key: '#' } },
        },
      });
      expect(agent.status).toBe(201);
      const run = await endedCall(agent.body.public_id, `${daytimeNumber(6, 2).slice(0, -3)}346`);
      const lines = await transcriptLines(agent.body.public_id, run.id);
      expect(lines.slice(0, 3)).toEqual([
        'assistant: Please enter your account number, then the hash key.',
        'user: [pressed 1234]',
        'assistant: Thank you, I found your account.',
      ]);
    },
  );

  it(
    'presses keys in a phone menu (the local callee at a number ending in 345 is one, hearing DTMF tones)',
    { timeout: 60_000 },
    async () => {
      const agent = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Menu navigator',
          workflow_definition: { greeting: 'Hello.', prompt: 'Reach the appointments desk.' },
          workflow_configurations: { keypad: { send_digits: true } },
        },
      });
      expect(agent.status).toBe(201);
      const run = await endedCall(agent.body.public_id, `${daytimeNumber(5, 3).slice(0, -3)}345`);
      const lines = await transcriptLines(agent.body.public_id, run.id);
      expect(lines.slice(0, 4)).toEqual([
        'assistant: Hello.',
        'user: For appointments press 2, for prices press 3.',
        expect.stringMatching(/^assistant: \[keys 2\]/),
        'user: You chose 2. Goodbye.',
      ]);
      expect(run.logs.map((log: { message: string }) => log.message)).toContain('Keys sent by the agent: 2');
    },
  );

  it(
    "reuses an agent's setup for at most AGENT_SETUP_REUSE_MS: a document added after a call reaches the calls started that long later",
    { timeout: 90_000 },
    async () => {
      const agent = await createAgent(`Reused setup ${randomUUID()}`);
      const knowledgeLogs = async (phoneNumber: string) => {
        const run = await endedCall(agent.public_id, phoneNumber);
        expect(run.status).toBe('completed');
        return run.logs
          .map((log: { message: string }) => log.message)
          .filter((message: string) => message.startsWith('Knowledge used'));
      };
      expect(await knowledgeLogs(daytimeNumber(5, 4))).toEqual([]);

      const document = await api.request('POST', `/agents/${agent.public_id}/knowledge-base/documents`, {
        key: org.key,
        body: { title: 'Hours', content: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
      });
      expect(document.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, AGENT_SETUP_REUSE_MS));
      expect(await knowledgeLogs(daytimeNumber(5, 5))).toEqual([
        expect.stringMatching(/^Knowledge used for "What are your opening hours\?": \[Hours\] Opening hours/),
      ]);
    },
  );

  it("puts the agent's open notes in its calls' instructions", { timeout: 60_000 }, async () => {
    const agent = await createAgent(`Noted ${randomUUID()}`);
    const content = `Call back Anna about invoice ${randomUUID()}`;
    const note = await api.request('POST', `/agents/${agent.public_id}/memories`, {
      key: org.key,
      body: { content, topic: 'billing' },
    });
    expect(note.status).toBe(201);
    // Seen by the call as the model's 500, which only a prompt holding the note can cause.
    await failModelWhenPromptHolds(`[billing] ${content}`);
    const run = await endedCall(agent.public_id, daytimeNumber(6, 3));
    expect(run.status).toBe('failed');
    expect(lastCallLog(run).message).toMatch(/^Call failed: language model at 127\.0\.0\.1:\d+: 500/);
  });

  it(
    'ends the run as failed when the model fails mid-call: channel released, recording and transcript saved',
    { timeout: 60_000 },
    async () => {
      const name = `Failing voice ${randomUUID()}`;
      const agent = await createAgent(name);
      // Every request of this agent fails (its name is in the system prompt).
      await failModelWhenPromptHolds(name);
      const run = await endedCall(agent.public_id, daytimeNumber(3, 2));
      expect(run.status).toBe('failed');
      expect(lastCallLog(run)).toMatchObject({
        level: 'ERROR',
        message: expect.stringMatching(/^Call failed: language model at 127\.0\.0\.1:\d+: 500/),
      });
      expect(run.recording_download_url).toEqual(expect.any(String));
      const wav = Buffer.from(await (await fetch(run.recording_download_url)).arrayBuffer());
      expect(wav.subarray(0, 4).toString()).toBe('RIFF');
      const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
        key: org.key,
      });
      expect(transcript.body.segments.slice(0, 2).map(({ text }: { text: string }) => text)).toEqual([
        'Hi Anna, Smile clinic here.',
        'Hello, who is this?',
      ]);

      // The organization's only channel is free again.
      const next = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: daytimeNumber(7, 2) },
      });
      expect(next.status).toBe(200);
    },
  );

  it(
    "uses the organization's own speech keys (stored encrypted, never returned) instead of the platform's",
    { timeout: 60_000 },
    async () => {
      const own = await newOrganization('Own speech keys', 1);
      const set = await api.request('PUT', '/speech-keys/deepgram', {
        key: own.key,
        body: { api_key: 'dg-own-key-12345678' },
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ provider: 'deepgram', api_url: null, key_last4: '5678' });
      expect(set.text).not.toContain('dg-own-key');
      expect(
        (
          await api.request('PUT', '/speech-keys/deepgram', {
            key: own.key,
            body: { api_key: 'dg-own-key-12345678', api_url: 'https://speech.example' },
          })
        ).status,
      ).toBe(400);
      expect(
        (await api.request('PUT', '/speech-keys/nope', { key: own.key, body: { api_key: 'k-12345678' } })).status,
      ).toBe(422);
      expect((await api.request('GET', '/speech-keys', { key: own.key })).body.items).toEqual([
        expect.objectContaining({ provider: 'deepgram', key_last4: '5678' }),
      ]);

      // The local Deepgram fake knows only the platform's key: a call with this key cannot open its stream.
      const agent = (
        await api.request('POST', '/agents', {
          key: own.key,
          body: { name: 'Own keys', workflow_definition: { greeting: 'Hello.' } },
        })
      ).body;
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: own.key,
        body: { phone_number: daytimeNumber(4, 3) },
      });
      const run = await eventually(async () => {
        const current = await api.request(
          'GET',
          `/agents/${agent.public_id}/conversations/${placed.body.workflow_run_id}`,
          { key: own.key },
        );
        return current.body.status !== 'in_progress' ? current.body : undefined;
      }, 40_000);
      expect(run.status).toBe('failed');
      expect(lastCallLog(run).message).toMatch(/^Call failed: Deepgram: /);

      expect((await api.request('DELETE', '/speech-keys/deepgram', { key: own.key })).status).toBe(204);
      expect((await api.request('DELETE', '/speech-keys/deepgram', { key: own.key })).status).toBe(404);
    },
  );
});
