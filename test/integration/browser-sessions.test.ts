import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { SimulatedCaller } from '../../media/src/streams/simulated-caller.ts';
import type { Agent } from '../../shared/schemas/agents.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';
import { connectSession, type SessionFrame } from '../support/sessions.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const api = apiClient();
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** Retries `check` until it passes (15 s at most), and gives what it returns. */
const until = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 100 });
let org: TestOrganization;
let agent: Agent;

interface Session {
  url: string;
  run_ref: string;
  token: string;
  expires_at: string;
}

beforeAll(async () => {
  org = await newOrganization('Browser sessions', 10);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'Front desk',
        workflow_definition: {
          greeting: 'Hi {{initial_context.name}}, this is Ann from Smile.',
          prompt: 'You answer questions about the clinic.',
          closing: 'Thanks for chatting. Bye.',
        },
        call_disposition_codes: { answered: 'Question answered' },
      },
    })
  ).body;
  const document = await api.request('POST', `/agents/${agent.public_id}/knowledge-base/documents`, {
    key: org.key,
    body: { title: 'Hours', content: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
  });
  expect(document.status).toBe(201);
  receiver = await startWebhookReceiver();
  const webhook = await api.request('POST', '/webhooks', {
    key: org.key,
    body: { url: receiver.url, events: ['call.started', 'call.completed'] },
  });
  expect(webhook.status).toBe(201);
});

afterAll(() => receiver?.close());

async function conversation(mode: string, key = org.key, agentRef = agent.public_id) {
  return api.request<{ id: number; mode: string; session: Session | null }>(
    'POST',
    `/agents/${agentRef}/conversations`,
    { key, body: { mode, name: `${mode} test`, initial_context: { name: 'Sam' } } },
  );
}

const run = (id: number) => api.request('GET', `/agents/${agent.public_id}/conversations/${id}`, { key: org.key });

describe('chat sessions', () => {
  it('chats with the agent of a call: greeting, knowledge, disposition and end_call, then a completed run', async () => {
    const created = await conversation('chat');
    expect(created.status).toBe(200);
    const { id, session } = created.body;
    expect(session).toMatchObject({
      url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/sessions$/),
      run_ref: `${org.organizationId}.${agent.id}.${id}`,
      token: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{43}$/),
    });
    expect(Date.parse(session!.expires_at) - Date.now()).toBeGreaterThan(500_000);

    const chat = await connectSession(session!);
    await until(() => expect(chat.of('text').map((frame) => frame.text)).toEqual(['Hi Sam, this is Ann from Smile.']));
    expect((await run(id)).body).toMatchObject({ status: 'in_progress' });

    chat.send({ event: 'message', text: 'What are your opening hours?' });
    await until(() => expect(chat.of('knowledge')).toHaveLength(1));
    expect(chat.of('knowledge')[0]!.passages[0]).toMatchObject({ title: 'Hours' });
    await until(() => expect(chat.of('mark').length).toBeGreaterThanOrEqual(2));

    chat.send({ event: 'message', text: '' });
    await until(() =>
      expect(chat.of('error')).toEqual([{ event: 'error', detail: 'A message is 1 to 4000 characters' }]),
    );

    chat.send({ event: 'message', text: 'Thank you, goodbye.' });
    expect(await chat.closed).toEqual({ code: 1000, reason: 'agent hung up' });
    expect(chat.of('tool_call').map((frame) => frame.name)).toEqual(['set_call_disposition', 'end_call']);
    // Each sentence as soon as it is written.
    expect(chat.of('text').slice(-2)).toEqual([
      { event: 'text', text: 'Thanks for chatting.' },
      { event: 'text', text: 'Bye.' },
    ]);
    expect(chat.of('transcript').map((frame) => [frame.role, frame.text])).toEqual([
      ['assistant', 'Hi Sam, this is Ann from Smile.'],
      ['user', 'What are your opening hours?'],
      ['assistant', expect.stringContaining('8:00 to 16:00')],
      ['user', 'Thank you, goodbye.'],
      ['assistant', 'Thanks for chatting. Bye.'],
    ]);

    const ended = await until(async () => {
      const response = await run(id);
      expect(response.body.status).toBe('completed');
      return response.body;
    });
    expect(ended).toMatchObject({
      mode: 'chat',
      gathered_context: { call_disposition: 'answered' },
      recording_url: null,
      transcript_url: expect.any(String),
    });
    expect(ended.logs.map((log: { message: string }) => log.message)).toEqual(
      expect.arrayContaining([
        'Session connected',
        expect.stringMatching(/^Knowledge used for "What are your opening hours\?"/),
        'Disposition chosen by the agent: answered',
        'Call ended: completed',
      ]),
    );
    const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${id}/transcript`, {
      key: org.key,
    });
    expect(transcript.body.segments.map((segment: { speaker: string; text: string }) => segment.text)).toEqual([
      'Hi Sam, this is Ann from Smile.',
      'What are your opening hours?',
      expect.stringContaining('8:00 to 16:00'),
      'Thank you, goodbye.',
      'Thanks for chatting. Bye.',
    ]);
    const recording = await api.request('GET', `/agents/${agent.public_id}/conversations/${id}/recording`, {
      key: org.key,
    });
    expect(recording.status).toBe(404);
    expect(recording.body).toEqual({ detail: 'This conversation has no recording' });
    // The same webhooks as a call's.
    await until(() => {
      const events = receiver.received
        .map(
          (delivery) => JSON.parse(delivery.body) as { type: string; data: { workflow_run_id?: number; id?: number } },
        )
        .filter((event) => JSON.stringify(event.data).includes(`"workflow_run_id":${id}`));
      expect(events.map((event) => event.type).sort()).toEqual(['call.completed', 'call.started']);
    });

    // The session is over: connecting again is refused, and the run stays as it ended.
    const again = await connectSession(session!);
    expect(await again.closed).toEqual({
      code: 4409,
      reason: 'refused: not a browser or chat session that is waiting to connect (connected before, or ended)',
    });
    expect((await run(id)).body).toMatchObject({ status: 'completed', ended_at: ended.ended_at });
  });

  it('ends when the client stops it, and when it is left idle', async () => {
    const stopped = (await conversation('chat')).body;
    const chat = await connectSession(stopped.session!);
    await until(() => expect(chat.of('text')).toHaveLength(1));
    chat.send({ event: 'stop' });
    await until(async () => expect((await run(stopped.id)).body.status).toBe('completed'));
    chat.ws.close();

    const idleAgent = (
      await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Quiet',
          workflow_definition: { greeting: 'Hello.' },
          workflow_configurations: { chat_idle_timeout_seconds: 10 },
        },
      })
    ).body as Agent;
    const idle = (await conversation('chat', org.key, idleAgent.public_id)).body;
    const left = await connectSession(idle.session!);
    expect(await left.closed).toEqual({ code: 1000, reason: 'agent hung up' });
    expect(left.of('text').map((frame) => frame.text)).toEqual([
      'Hello.',
      "As there have been no new messages for a while, I'm closing this chat now. Goodbye.",
    ]);
  }, 30_000);
});

describe('browser voice sessions (webrtc over the session WebSocket)', () => {
  it('hears the browser, answers in audio, and ends completed with a recording and transcript', async () => {
    const { id, session } = (await conversation('webrtc')).body;
    const voice = await connectSession(session!);
    const caller = new SimulatedCaller({ streamSid: 'browser', runRef: session!.run_ref });
    // The greeting is 31 characters: one 20 ms frame each.
    await until(() => expect(voice.of('media').length).toBe(31));
    for (const frame of [
      ...caller.silence(700),
      ...caller.say('What are your opening hours?'),
      ...caller.silence(1500),
    ])
      voice.send(frame as SessionFrame);
    await until(() =>
      expect(voice.of('transcript').map((frame) => frame.role)).toEqual(['assistant', 'user', 'assistant']),
    );
    expect(voice.of('transcript')[1]!.text).toBe('What are your opening hours?');
    voice.send({ event: 'stop' });
    const ended = await until(async () => {
      const response = await run(id);
      expect(response.body.status).toBe('completed');
      return response.body;
    });
    expect(ended).toMatchObject({ mode: 'webrtc', recording_url: expect.any(String) });
    const recording = await fetch(ended.recording_download_url);
    expect(recording.headers.get('content-type')).toBe('audio/wav');
    expect((await recording.arrayBuffer()).byteLength).toBeGreaterThan(44 + 8000);
  });
});

describe('session credentials', () => {
  it('gives no session to modes that have none, and refuses forged, replayed and mismatched credentials', async () => {
    const telephony = await conversation('twilio');
    expect(telephony.status).toBe(200);
    expect(telephony.body.session).toBeNull();
    // Even with a valid credential for its run, a run that is not a browser or chat session has none.
    Object.assign(process.env, inject('stackEnv'));
    const { mintStreamToken } = await import('../../shared/telephony/stream-token.ts');
    const telephonyRef = `${org.organizationId}.${agent.id}.${telephony.body.id}`;
    const { url } = (await conversation('chat')).body.session!;
    expect(
      await (
        await connectSession({ url, run_ref: telephonyRef, token: await mintStreamToken(telephonyRef, 60) })
      ).closed,
    ).toMatchObject({
      code: 4409,
    });
    expect((await run(telephony.body.id)).body).toMatchObject({ status: 'created', logs: [] });
    // An SDP offer on a session whose audio goes over the WebSocket is refused, and the session ends.
    const voice = await connectSession((await conversation('webrtc')).body.session!);
    voice.send({ event: 'offer', sdp: 'v=0' });
    expect(await voice.closed).toEqual({ code: 4501, reason: 'this session takes no SDP offer' });
    const other = await newOrganization('Browser sessions, other');
    expect((await conversation('chat', other.key)).status).toBe(404);

    const first = (await conversation('chat')).body.session!;
    const second = (await conversation('chat')).body.session!;
    const refused = async (claim: Pick<Session, 'url' | 'run_ref' | 'token'>) => (await connectSession(claim)).closed;
    // Another run's credential, a forged one, and none of them starts anything.
    expect(await refused({ ...first, token: second.token })).toEqual({
      code: 4401,
      reason: 'refused: session credential wrong_run',
    });
    expect(await refused({ ...first, token: `${first.token.split('.')[0]}.${'A'.repeat(43)}` })).toMatchObject({
      code: 4401,
    });
    expect(await refused({ ...first, run_ref: 'nonsense' })).toMatchObject({ code: 4400 });
    const [firstRunId] = first.run_ref.split('.').slice(2).map(Number);
    expect((await run(firstRunId!)).body).toMatchObject({ status: 'created', logs: [] });

    // One connection per session: the second is refused, the first goes on.
    const connected = await connectSession(first);
    await until(() => expect(connected.of('text')).toHaveLength(1));
    expect(await refused(first)).toMatchObject({ code: 4409 });
    connected.send({ event: 'message', text: 'Bye.' });
    expect(await connected.closed).toMatchObject({ code: 1000 });
  });
});
