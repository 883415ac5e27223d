import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { connectSession } from '../support/sessions.ts';

/**
 * Issue 37, item 3: a chat session is bounded (a flood gets an error frame and a close), and a
 * run's logs keep every line however many there are (a control command after hundreds of 4 KB
 * lines included), read back in order and deleted with the run.
 */
const api = apiClient();
const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 100 });
let org: TestOrganization;
let agent: { id: number; public_id: string };

type Log = { timestamp: string; level: string; message: string };

beforeAll(async () => {
  org = await newOrganization('Chat limits', 5);
  const created = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Front desk',
      workflow_definition: {
        greeting: 'Hi, this is Ann from Smile.',
        prompt: 'You answer questions.',
        // A plan longer than any test's turns: the local model ends a call only past its plan
        // (or on a goodbye), so no test races the agent hanging up.
        steps: ['Ask how you can help.', 'Answer the question.', 'Offer more help.', 'Answer again.'],
        closing: 'Bye.',
      },
    },
  });
  expect(created.status).toBe(201);
  agent = created.body;
});

const path = (runId: number, what = '') => `/agents/${agent.public_id}/conversations/${runId}${what ? `/${what}` : ''}`;
const run = (id: number) => api.request('GET', path(id), { key: org.key });

/** A new chat session, connected like the client library does (marks echoed). */
async function openChat() {
  const created = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
    key: org.key,
    body: { mode: 'chat', name: 'chat limits' },
  });
  expect(created.status).toBe(200);
  const { id, session } = created.body as { id: number; session: { url: string; run_ref: string; token: string } };
  return { id, runRef: session.run_ref, ...(await connectSession(session)) };
}

/** A chat session once its greeting is in. */
async function chat() {
  const session = await openChat();
  await until(() => expect(session.of('text').length).toBeGreaterThan(0));
  return session;
}

const ended = (id: number) =>
  until(async () => {
    const body = (await run(id)).body;
    expect(body.status).not.toBe('in_progress');
    return body as { status: string; logs: Log[] };
  });

describe.skipIf(needsLocalStack)('a chat session without bounds no more', () => {
  it('a flood of messages gets an error frame saying why and a 4429 close; the run completes', async () => {
    const session = await chat();
    // More than the burst at once (a script, not a person).
    for (let i = 0; i < 50; i++) session.send({ event: 'message', text: `message ${i}` });
    expect(await session.closed).toEqual({ code: 4429, reason: 'too many messages' });
    expect(session.of('error')).toEqual([
      { event: 'error', detail: 'Too many messages: at most 10 at once, then 30 a minute' },
    ]);
    const finished = await ended(session.id);
    expect(finished.status).toBe('completed');
    // The run's logs say why it ended, not only "Call ended: completed".
    await until(async () =>
      expect((await run(session.id)).body.logs.map((line: Log) => line.message)).toContain(
        'Chat session closed over its limits: Too many messages: at most 10 at once, then 30 a minute',
      ),
    );
    // The model was asked about the accepted messages only (each stops the answer before it).
    const transcript = (await api.request('GET', path(session.id, 'transcript'), { key: org.key })).body;
    const said = transcript.segments
      .filter((segment: { role: string }) => segment.role === 'user')
      .map((segment: { text: string }) => segment.text)
      .join(' ');
    expect(said).toContain('message 9');
    expect(said).not.toContain('message 10');
  });

  it('too much text in one turn gets an error frame and a 4413 close', async () => {
    // Four full messages sent with the start frame: they arrive while the session is admitted and
    // are checked together before the agent can say anything (an answer between them would start
    // a new turn), however loaded the machine.
    const session = await openChat();
    const full = 'a'.repeat(4_000);
    for (let i = 0; i < 4; i++) session.send({ event: 'message', text: full });
    expect(await session.closed).toMatchObject({ code: 4413 });
    expect(session.of('error').at(-1)!.detail).toMatch(/^Too much text before the agent answers/);
    await ended(session.id);
  });

  it('keeps every log line of a long run, a control command after 150 lines of 4 KB included, and deletion removes them', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const runs = await import('../../shared/repositories/runs-lifecycle.ts');
    const session = await chat();
    const ref = { organizationId: org.organizationId, agentId: agent.id, runId: session.id };
    // What the media task's run log writes for a long call: 150 lines of 4 KB (600 KB, past the
    // 400 KB of a DynamoDB item), through the same call.
    const written: string[] = [];
    for (let i = 0; i < 150; i++) {
      const message = `Line ${String(i).padStart(3, '0')} ${'k'.repeat(4_000)}`;
      written.push(message);
      expect(await runs.updateActiveRun(ref, {}, { timestamp: new Date().toISOString(), level: 'INFO', message })).toBe(
        true,
      );
    }
    const said = await api.request('POST', path(session.id, 'control'), {
      key: org.key,
      body: { type: 'say', text: 'A colleague will call you back today.' },
    });
    expect(said.status).toBe(200);
    expect(
      (await api.request('POST', path(session.id, 'control'), { key: org.key, body: { type: 'end' } })).status,
    ).toBe(200);
    await session.closed;
    const finished = await ended(session.id);
    const messages = finished.logs.map((log) => log.message);
    expect(messages[0]).toBe('Session connected');
    expect(messages.filter((message) => message.startsWith('Line '))).toEqual(written);
    expect(messages).toEqual(
      expect.arrayContaining([
        'Said through the control API: A colleague will call you back today.',
        'Ended through the control API',
      ]),
    );
    expect(messages.at(-1)).toMatch(/^Call ended: completed/);
    const times = finished.logs.map((log) => log.timestamp);
    expect(times).toEqual([...times].sort());

    // Deleting the run deletes its lines.
    const { listRunLogs } = await import('../../shared/repositories/run-logs.ts');
    expect((await listRunLogs(ref)).length).toBeGreaterThan(150);
    expect((await api.request('DELETE', path(session.id), { key: org.key })).status).toBe(204);
    expect(await listRunLogs(ref)).toEqual([]);
    expect((await run(session.id)).status).toBe(404);
  }, 120_000);

  it('a control command whose log line cannot be written is not applied: 503, and an error of the service', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const [{ LiveCalls }, { mintStreamToken }, { CONTROL_PATH, purposeRef }] = await Promise.all([
      import('../../media/src/live-call-server.ts'),
      import('../../shared/telephony/stream-token.ts'),
      import('../../shared/domain/live-call-access.ts'),
    ]);
    const logged: { level: string; message: string }[] = [];
    const live = new LiveCalls(
      () => '127.0.0.1:1',
      (level, message) => void logged.push({ level, message }),
      () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
    );
    const applied: unknown[] = [];
    const session = {
      isFinished: false,
      finished: new Promise(() => {}),
      control: (command: unknown) => {
        applied.push(command);
        return null;
      },
    } as unknown as CallPipeline;
    const runRef = `${org.organizationId}.${agent.id}.999999`;
    live.add(runRef, session);
    const server = createServer((request, response) => {
      if (!live.handleRequest(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}${CONTROL_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          run_ref: runRef,
          token: await mintStreamToken(purposeRef('control', runRef), 60),
          command: { type: 'end' },
        }),
      });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        detail: 'The command was not applied: the run log could not record it; try again',
      });
      expect(applied).toEqual([]);
      expect(logged).toContainEqual({
        level: 'error',
        message: 'could not write a control command to the run log: not applied',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
