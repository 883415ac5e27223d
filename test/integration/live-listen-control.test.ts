import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import type { LiveEvent } from '../../media/src/call/live-tap.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { telnyxAccount, useTelnyx } from '../support/telnyx.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { NO_TELEMETRY } from '../../media/src/telemetry/turn-telemetry.ts';

/**
 * Live listen and control on the local stack: a listener hears a call's two sides and follows its
 * events, a supervisor makes the agent say something, adds to its context and ends the run, over
 * a chat, a call through the local Twilio and one through the local Telnyx; a second media task
 * passes a listener and a command on to the task holding the call; other organizations, forged,
 * borrowed and expired credentials are refused.
 */
const api = apiClient();
type Frame = { event: string; [field: string]: any };
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Live calls', 4);
  agent = await newAgent(org);
});

async function newAgent(owner: TestOrganization) {
  const created = await api.request('POST', '/agents', {
    key: owner.key,
    body: {
      name: 'Supervised',
      workflow_definition: {
        greeting: 'Hi, Smile clinic here.',
        prompt: 'You book dental visits.',
        steps: ['Would you like to book a visit?', 'Anything else?', 'Shall I book it?'],
        closing: 'Bye.',
      },
      workflow_configurations: { silence_timeout_seconds: 6 },
    },
  });
  expect(created.status).toBe(201);
  return created.body as { id: number; public_id: string };
}

const path = (runId: number, what: string, by: { public_id: string } = agent) =>
  `/agents/${by.public_id}/conversations/${runId}/${what}`;
const control = (runId: number, command: Record<string, unknown>, key = org.key, by: { public_id: string } = agent) =>
  api.request('POST', path(runId, 'control', by), { key, body: command });
const listenUrl = async (runId: number, key = org.key, by: { public_id: string } = agent) => {
  const response = await api.request('POST', path(runId, 'listen', by), { key });
  expect(response.status).toBe(200);
  return response.body.url as string;
};

/** A WebSocket with every JSON frame it received, and its close. */
async function socket(url: string, onFrame: (frame: Frame, ws: WebSocket) => void = () => {}) {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame;
    frames.push(frame);
    onFrame(frame, ws);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const of = (event: string) => frames.filter((frame) => frame.event === event);
  return { ws, frames, closed, of };
}

/** A chat session connected like the client library, its greeting received. */
async function connectedChat() {
  const created = await api.request('POST', `/agents/${agent.public_id}/conversations`, {
    key: org.key,
    body: { mode: 'chat', name: 'Supervised chat' },
  });
  expect(created.status).toBe(200);
  const { id, session } = created.body as { id: number; session: { url: string; run_ref: string; token: string } };
  // Not live before it connects.
  const early = await api.request('POST', path(id, 'listen'), { key: org.key });
  expect(early.status).toBe(409);
  expect(early.body.detail).toMatch(/not live yet/);
  const chat = await socket(session.url, (frame, ws) => {
    if (frame.event === 'mark') ws.send(JSON.stringify(frame));
  });
  chat.ws.send(
    JSON.stringify({
      event: 'start',
      start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } },
    }),
  );
  await eventually(() => (chat.of('text').length ? true : undefined));
  return { id, runRef: session.run_ref, sessionToken: session.token, chat };
}

const texts = (frames: Frame[]) => frames.filter((frame) => frame.event === 'text').map((frame) => frame.text);
const run = (id: number, owner = org, by: { public_id: string } = agent) =>
  api.request('GET', `/agents/${by.public_id}/conversations/${id}`, { key: owner.key });

describe.skipIf(needsLocalStack)('live listen and control', () => {
  it('follows a chat, says a sentence in it, adds to its context and ends it', async () => {
    const { id, chat } = await connectedChat();
    const listener = await socket(await listenUrl(id));
    await eventually(() => (listener.of('start').length ? true : undefined));
    expect(listener.frames[0]).toEqual({
      event: 'start',
      run_ref: `${org.organizationId}.${agent.id}.${id}`,
      media_format: { encoding: 'audio/x-mulaw', sample_rate: 8000, channels: 1 },
    });

    chat.ws.send(JSON.stringify({ event: 'message', text: 'What are your opening hours?' }));
    await eventually(() => (listener.of('transcript').length >= 2 ? true : undefined));
    expect(listener.of('transcript')[0]).toMatchObject({ role: 'user', text: 'What are your opening hours?' });

    const said = await control(id, { type: 'say', text: 'A colleague will call you back today.' });
    expect(said.status).toBe(200);
    expect(said.body).toEqual({ workflow_run_id: id, type: 'say', status: 'applied' });
    await eventually(() => (texts(chat.frames).includes('A colleague will call you back today.') ? true : undefined));
    await eventually(() =>
      listener.of('transcript').some((frame) => frame.text === 'A colleague will call you back today.')
        ? true
        : undefined,
    );

    const added = await control(id, { type: 'add_message', content: 'The person is a returning patient.' });
    expect(added.status).toBe(200);
    expect(listener.of('control').map((frame) => frame.type)).toEqual(['say', 'add_message']);
    // The longest message, each character a 6-byte JSON escape on the way to the media service, is applied.
    expect((await control(id, { type: 'add_message', content: '\u0001'.repeat(4000) })).status).toBe(200);
    // A lone surrogate cannot be stored or passed on as text: the API's 422, FastAPI's string_unicode.
    const surrogate = await control(id, { type: 'add_message', content: 'hello \ud800' });
    expect(surrogate.status).toBe(422);
    expect(surrogate.body.detail).toEqual([
      {
        type: 'string_unicode',
        loc: ['body', 'content'],
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
        input: 'hello \ud800',
      },
    ]);

    // Bad commands are the API's 422, before anything reaches the call.
    const bad = await control(id, { type: 'transfer', to: '+15551234567' });
    expect(bad.status).toBe(422);
    expect((await control(id, { type: 'say', text: '' })).status).toBe(422);

    const ended = await control(id, { type: 'end', say: 'Goodbye from the clinic.' });
    expect(ended.status).toBe(200);
    expect(await chat.closed).toEqual({ code: 1000, reason: 'agent hung up' });
    expect(texts(chat.frames).at(-1)).toBe('Goodbye from the clinic.');
    expect(await listener.closed).toEqual({ code: 1000, reason: 'call ended' });
    expect(listener.frames.at(-1)).toMatchObject({ event: 'end' });

    const finished = await eventually(async () => {
      const body = (await run(id)).body;
      return body.status !== 'in_progress' ? body : undefined;
    });
    expect(finished.status).toBe('completed');
    expect(finished.logs.map((log: { message: string }) => log.message)).toEqual(
      expect.arrayContaining([
        'Said through the control API: A colleague will call you back today.',
        'Message added through the control API: The person is a returning patient.',
        'Ended through the control API',
      ]),
    );
    // Over: neither listened to nor steered any more.
    expect((await control(id, { type: 'end' })).status).toBe(409);
    expect((await api.request('POST', path(id, 'listen'), { key: org.key })).status).toBe(409);
  });

  it('refuses another organization, and forged, borrowed or expired credentials', async () => {
    const { id, runRef, sessionToken, chat } = await connectedChat();
    const other = await newOrganization('Live calls, another organization', 1);
    expect((await api.request('POST', path(id, 'listen'), { key: other.key })).status).toBe(404);
    expect((await control(id, { type: 'end' }, other.key)).status).toBe(404);

    const url = new URL(await listenUrl(id));
    const refusedWith = async (token: string, ref = runRef) => {
      const attempt = new URL(url);
      attempt.search = new URLSearchParams({ run_ref: ref, token }).toString();
      return (await socket(attempt.toString())).closed;
    };
    const token = url.searchParams.get('token')!;
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect(await refusedWith(forged)).toEqual({ code: 4401, reason: 'refused: listen credential wrong_run' });
    // The session's own credential is not a listen credential.
    expect(await refusedWith(sessionToken)).toEqual({ code: 4401, reason: 'refused: listen credential wrong_run' });
    Object.assign(process.env, inject('stackEnv'));
    const { mintStreamToken } = await import('../../shared/telephony/stream-token.ts');
    const { purposeRef } = await import('../../shared/domain/live-call-access.ts');
    const expired = await mintStreamToken(purposeRef('listen', runRef), 60, Date.now() - 120_000);
    expect(await refusedWith(expired)).toEqual({ code: 4401, reason: 'refused: listen credential expired' });
    // A listen credential of another run.
    const otherRun = await connectedChat();
    expect(await refusedWith(token, otherRun.runRef)).toEqual({
      code: 4401,
      reason: 'refused: listen credential wrong_run',
    });
    for (const session of [chat, otherRun.chat]) session.ws.close();
  });

  it('passes a listener and a command on from another media task to the one holding the call', async () => {
    const { id, runRef, chat } = await connectedChat();
    Object.assign(process.env, inject('stackEnv'));
    const [{ startMediaService }, { platformProviders }, { startFakeVoiceProviders }, tokens, live] = await Promise.all(
      [
        import('../../media/src/service.ts'),
        import('../../media/src/agent/providers.ts'),
        import('../../local/fakes/voice-providers.ts'),
        import('../../shared/telephony/stream-token.ts'),
        import('../../shared/domain/live-call-access.ts'),
      ],
    );
    const fakes = await startFakeVoiceProviders();
    // A second task, in this process: the load balancer may send a listener or a command here.
    const other = await startMediaService({
      port: 0,
      host: '127.0.0.1',
      advertisedHost: '127.0.0.1',
      calls: { providers: platformProviders(fakes.settings, fakes.readKeys), settings: fakes.settings },
      log: () => {},
      telemetry: NO_TELEMETRY,
    });
    try {
      const listenAt = new URL(await listenUrl(id));
      listenAt.port = String(other.port);
      const listener = await socket(listenAt.toString());
      await eventually(() => (listener.of('start').length ? true : undefined));

      const token = await tokens.mintStreamToken(live.purposeRef('control', runRef), 60);
      const command = (body: Record<string, unknown>) =>
        fetch(`http://127.0.0.1:${other.port}${live.CONTROL_PATH}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      const passed = await command({ run_ref: runRef, token, command: { type: 'say', text: 'Passed on.' } });
      expect(passed.status).toBe(200);
      expect(await passed.json()).toEqual({ status: 'applied' });
      await eventually(() => (texts(chat.frames).includes('Passed on.') ? true : undefined));
      await eventually(() => (listener.of('control').length ? true : undefined));
      // A listen credential does not control.
      const listenToken = listenAt.searchParams.get('token');
      const wrongPurpose = await command({ run_ref: runRef, token: listenToken, command: { type: 'end' } });
      expect(wrongPurpose.status).toBe(401);
      expect(await wrongPurpose.json()).toEqual({ detail: 'control credential wrong_run' });

      chat.ws.close();
      expect((await listener.closed).code).toBe(1000);
    } finally {
      await other.close();
      await fakes.stop();
    }
  });

  /** Places a call and gives its run id once it can be listened to (answered). */
  async function liveCall(owner: TestOrganization, by: { public_id: string }, lastDigit: number, offset: number) {
    const placed = await api.request('POST', `/agents/${by.public_id}/calls`, {
      key: owner.key,
      body: { phone_number: daytimeNumber(lastDigit, offset) },
    });
    expect(placed.status).toBe(200);
    const runId = placed.body.workflow_run_id as number;
    const url = await eventually(
      async () => {
        const response = await api.request('POST', path(runId, 'listen', by), { key: owner.key });
        return response.status === 200 ? (response.body.url as string) : undefined;
      },
      20_000,
      50,
    );
    return { runId, url };
  }

  it("has a listener who comes while the call's stream is being admitted wait for its session, not refused as ended", async () => {
    // The admission notes the run's media host (which the API's listen checks) before the session
    // exists: a supervisor who asks to listen as the call is answered came in between.
    Object.assign(process.env, inject('stackEnv'));
    const [{ LiveCalls }, { mintStreamToken }, { listenUrl, purposeRef }] = await Promise.all([
      import('../../media/src/live-call-server.ts'),
      import('../../shared/telephony/stream-token.ts'),
      import('../../shared/domain/live-call-access.ts'),
    ]);
    const live = new LiveCalls(
      () => '127.0.0.1:1',
      () => {},
    );
    const server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (request, socket, head) => {
      if (!live.onUpgrade(request, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const listen = async (runRef: string) => {
      const token = await mintStreamToken(purposeRef('listen', runRef), 60);
      const socket = new WebSocket(listenUrl(`ws://127.0.0.1:${port}/media`, runRef, token));
      const frames: Frame[] = [];
      socket.on('message', (data) => frames.push(JSON.parse(String(data))));
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
      );
      await new Promise((resolve) => socket.once('open', resolve));
      return { socket, frames, closed };
    };
    const settles = () => {
      let settle!: (result: { accepted: boolean }) => void;
      return { admission: new Promise<{ accepted: boolean }>((resolve) => (settle = resolve)), settle };
    };
    try {
      // Admitted 300 ms after the listener came: it hears the call from its session.
      const runRef = `${org.organizationId}.${agent.id}.999001`;
      const accepted = settles();
      live.admitting(runRef, accepted.admission);
      const listener = await listen(runRef);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const followers: ((event: LiveEvent) => void)[] = [];
      const session = {
        isFinished: false,
        finished: new Promise(() => {}),
        observe: (follow: (event: LiveEvent) => void) => {
          followers.push(follow);
          return () => {};
        },
      } as unknown as CallPipeline;
      accepted.settle({ accepted: true });
      live.add(runRef, session);
      await eventually(() => (followers.length ? true : undefined));
      followers[0]!({ event: 'transcript', role: 'user', text: 'Hello?' });
      await eventually(() => (listener.frames.length === 2 ? true : undefined));
      expect(listener.frames.map((frame) => frame.event)).toEqual(['start', 'transcript']);
      listener.socket.close();

      // Refused: the listener is refused as before, once the admission has settled.
      const refusedRef = `${org.organizationId}.${agent.id}.999002`;
      const refused = settles();
      live.admitting(refusedRef, refused.admission);
      const late = await listen(refusedRef);
      refused.settle({ accepted: false });
      expect(await late.closed).toEqual({ code: 4409, reason: 'refused: the call is not in progress' });
    } finally {
      live.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('hears both sides of a call through the local Twilio, with its transcript as it goes', async () => {
    const { runId, url } = await liveCall(org, agent, 2, 6);
    const listener = await socket(url);
    expect((await listener.closed).code).toBe(1000);
    const media = listener.of('media');
    const tracks = new Set(media.map((frame) => frame.track));
    expect(tracks).toEqual(new Set(['inbound', 'outbound']));
    // 20 ms of mu-law each: the caller's audio all along, the agent's while it speaks.
    expect(media.every((frame) => Buffer.from(frame.payload, 'base64').length === 160)).toBe(true);
    expect(media.filter((frame) => frame.track === 'inbound').length).toBeGreaterThan(100);
    expect(media.filter((frame) => frame.track === 'outbound').length).toBeGreaterThan(25);
    const transcript = listener.of('transcript').map((frame) => `${frame.role}: ${frame.text}`);
    expect(transcript).toContain('user: Hello, who is this?');
    expect(listener.frames.at(-1)).toMatchObject({ event: 'end' });
    const ended = await eventually(async () => {
      const body = (await run(runId)).body;
      return body.status !== 'in_progress' ? body : undefined;
    }, 20_000);
    expect(ended.status).toBe('completed');
  }, 60_000);

  it('ends a call through the local Telnyx: the call is hung up through Call Control', async () => {
    const owner = await newOrganization('Live calls on Telnyx', 1);
    const telnyxAgent = await newAgent(owner);
    const callerId = '+442079460577';
    const account = await telnyxAccount([callerId]);
    expect((await useTelnyx(owner, account, callerId)).status).toBe(200);
    const { runId, url } = await liveCall(owner, telnyxAgent, 2, 7);
    const listener = await socket(url);
    await eventually(() => (listener.of('media').length ? true : undefined));
    const ended = await control(runId, { type: 'end' }, owner.key, telnyxAgent);
    expect(ended.status).toBe(200);
    expect((await listener.closed).code).toBe(1000);
    const finished = await eventually(async () => {
      const body = (await run(runId, owner, telnyxAgent)).body;
      return body.status !== 'in_progress' ? body : undefined;
    }, 20_000);
    expect(finished.status).toBe('completed');
    const messages = finished.logs.map((log: { message: string }) => log.message);
    expect(messages).toContain('Ended through the control API');
    expect(messages).toContainEqual(expect.stringMatching(/^Hung up at telnyx: the agent ended the call/));
    const hangUp = await eventually(async () => (await account.stats()).calls_ended[0]);
    expect(hangUp.hangup_source).toBe('caller');
  }, 60_000);
});
