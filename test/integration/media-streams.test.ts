import type { Agent } from '../../shared/schemas/agents.ts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { SimulatedCaller } from '../../media/src/streams/simulated-caller.ts';
import { apiClient, newOrganization, needsLocalStack, type TestOrganization } from '../support/api.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { NO_TELEMETRY } from '../../media/src/telemetry/turn-telemetry.ts';

const api = apiClient();
let org: TestOrganization;
let agent: Agent;

beforeAll(async () => {
  org = await newOrganization('Media streams', 10);
  agent = (
    await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Guarded', workflow_definition: { greeting: 'Hi.', steps: [], closing: 'Bye.' } },
    })
  ).body;
});

/**
 * A run as call placement leaves it before the provider connects the stream: in progress, waiting
 * for media; with `providerCallId: null`, one whose dial has not noted the provider's id yet.
 */
async function waitingRun({ providerCallId = 'CA-test' as string | null } = {}) {
  Object.assign(process.env, inject('stackEnv'));
  const runs = {
    ...(await import('../../shared/repositories/runs-read.ts')),
    ...(await import('../../shared/repositories/runs-lifecycle.ts')),
  };
  const { nextId } = await import('../../shared/repositories/counters.ts');
  const id = await nextId('run');
  const createdAt = new Date().toISOString();
  const { newRun } = await import('../../shared/services/new-run.ts');
  // Dialed: the provider has the call, its stream is still to come.
  const run = {
    ...newRun(org.organizationId, agent, {
      id,
      name: 'Waiting',
      mode: 'phone',
      status: 'in_progress',
      phone_number: '+48601234561',
      from_number: null,
      created_at: createdAt,
      logs: [],
      campaign: null,
      initialContext: {},
    }),
    provider_call_id: providerCallId,
  };
  expect(await runs.insertRun(run, true)).toBe(true);
  const { mintStreamToken } = await import('../../shared/telephony/stream-token.ts');
  const runRef = `${org.organizationId}.${agent.id}.${id}`;
  return {
    id,
    runRef,
    token: await mintStreamToken(runRef, 900),
    ref: { organizationId: org.organizationId, agentId: agent.id, runId: id },
    /** The run with its logs (log items of their own, read back as the API does). */
    read: async () => {
      const stored = await runs.getRun(org.organizationId, agent.id, id);
      const { listRunLogs } = await import('../../shared/repositories/run-logs.ts');
      const ref = { organizationId: org.organizationId, agentId: agent.id, runId: id };
      return stored && { ...stored, logs: await listRunLogs(ref, stored.logs) };
    },
  };
}

/** Opens a stream like the provider: connected + start with the custom parameters, then what `after` sends. */
async function stream(
  start: { runRef: string; streamToken?: string },
  after: (ws: WebSocket) => void = () => {},
  url = inject('stackEnv').MEDIA_STREAM_URL!,
) {
  const ws = new WebSocket(url);
  const received: { event: string }[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const caller = new SimulatedCaller(start);
  for (const message of caller.start()) ws.send(JSON.stringify(message));
  after(ws);
  return { ws, received, closed, caller };
}

const unchanged = (run: Awaited<ReturnType<Awaited<ReturnType<typeof waitingRun>>['read']>>) =>
  expect(run).toMatchObject({
    status: 'in_progress',
    answered_at: null,
    recording_key: null,
    transcript_key: null,
    duration_seconds: null,
  });

describe.skipIf(needsLocalStack)('media stream admission', () => {
  it('closes a stream without a credential at once (1008) and changes nothing', async () => {
    const run = await waitingRun();
    const { closed, received } = await stream({ runRef: run.runRef });
    expect(await closed).toBe(1008);
    expect(received).toEqual([]);
    unchanged(await run.read());
  });

  it("refuses another run's credential, and an expired one", async () => {
    const [target, other] = [await waitingRun(), await waitingRun()];
    const borrowed = await stream({ runRef: target.runRef, streamToken: other.token });
    expect(await borrowed.closed).toBe(1008);
    const { mintStreamToken } = await import('../../shared/telephony/stream-token.ts');
    const expired = await stream({
      runRef: target.runRef,
      streamToken: await mintStreamToken(target.runRef, 60, Date.now() - 120_000),
    });
    expect(await expired.closed).toBe(1008);
    unchanged(await target.read());
    unchanged(await other.read());
  });

  it('admits the credential minted for the run, once: a second stream for the same run is refused', async () => {
    const run = await waitingRun();
    const first = await stream({ runRef: run.runRef, streamToken: run.token });
    // Admitted: the agent greets and the run is answered.
    await eventually(async () => first.received.some((message) => message.event === 'media') || undefined);
    expect((await run.read())!.answered_at).toEqual(expect.any(String));

    const second = await stream({ runRef: run.runRef, streamToken: run.token });
    expect(await second.closed).toBe(1008);
    expect(second.received).toEqual([]);
    expect(first.ws.readyState).toBe(WebSocket.OPEN);

    first.ws.send(JSON.stringify(first.caller.stop()));
    first.ws.close();
    const ended = await eventually(async () => {
      const current = await run.read();
      return current?.status !== 'in_progress' ? current : undefined;
    });
    expect(ended).toMatchObject({ status: 'completed', recording_key: expect.any(String) });
  });

  it('ends the run it admitted without losing what was noted on it during the call', async () => {
    // The stream can start before the dial has noted the provider's call id; the call ends from the
    // run its admission returned, and must not write that stale copy back.
    const run = await waitingRun({ providerCallId: null });
    const call = await stream({ runRef: run.runRef, streamToken: run.token });
    await eventually(async () => call.received.some((message) => message.event === 'media') || undefined);
    const runs = {
      ...(await import('../../shared/repositories/runs-read.ts')),
      ...(await import('../../shared/repositories/runs-lifecycle.ts')),
    };
    const noted = { timestamp: new Date().toISOString(), level: 'INFO', message: 'Dialing through twilio' };
    expect(await runs.updateActiveRun(run.ref, { provider_call_id: 'CA-late' }, noted)).toBe(true);

    call.ws.send(JSON.stringify(call.caller.stop()));
    call.ws.close();
    const ended = await eventually(async () => {
      const current = await run.read();
      return current?.status !== 'in_progress' ? current : undefined;
    });
    expect(ended).toMatchObject({
      status: 'completed',
      provider_call_id: 'CA-late',
      duration_seconds: expect.any(Number),
      recording_key: expect.any(String),
      gathered_context: { call_disposition: expect.any(String) },
    });
    expect(ended!.logs.map((entry) => entry.message)).toEqual([
      'Call answered',
      'Dialing through twilio',
      'Call ended: completed',
    ]);
  });

  it('refuses a stream for a run that has ended, or that does not exist', async () => {
    const run = await waitingRun();
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    await completeCall({
      ref: { organizationId: org.organizationId, agentId: agent.id, runId: run.id },
      outcome: 'busy',
      endedAt: new Date().toISOString(),
    });
    const late = await stream({ runRef: run.runRef, streamToken: run.token });
    expect(await late.closed).toBe(1008);
    expect(await run.read()).toMatchObject({ status: 'busy', answered_at: null });

    const { mintStreamToken } = await import('../../shared/telephony/stream-token.ts');
    const ghost = `${org.organizationId}.${agent.id}.999999999`;
    expect(await (await stream({ runRef: ghost, streamToken: await mintStreamToken(ghost, 900) })).closed).toBe(1008);
  });

  it('closes a connection that sends an oversized frame or media before its start frame, and changes nothing', async () => {
    const run = await waitingRun();
    const ws = new WebSocket(inject('stackEnv').MEDIA_STREAM_URL!);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ event: 'media', streamSid: 'MZ', media: { payload: 'A'.repeat(64 * 1024) } }));
    expect(await closed).toBe(1009);

    const early = new WebSocket(inject('stackEnv').MEDIA_STREAM_URL!);
    const earlyClosed = new Promise<number>((resolve) => early.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => early.once('open', resolve).once('error', reject));
    const caller = new SimulatedCaller({ runRef: run.runRef, streamToken: run.token });
    for (const message of caller.silence(40)) early.send(JSON.stringify(message));
    expect(await earlyClosed).toBe(1008);
    unchanged(await run.read());
  });

  it('drops oversized media frames of an admitted stream without recording them', async () => {
    const run = await waitingRun();
    const admitted = await stream({ runRef: run.runRef, streamToken: run.token });
    await eventually(async () => admitted.received.some((message) => message.event === 'media') || undefined);
    // 12 KB of audio in one frame (a legitimate frame is 160 bytes) and a frame stamped a year into the call.
    admitted.ws.send(
      JSON.stringify({
        event: 'media',
        streamSid: admitted.caller.streamSid,
        media: { track: 'inbound', timestamp: '100', payload: Buffer.alloc(12_000, 0xff).toString('base64') },
      }),
    );
    admitted.ws.send(
      JSON.stringify({
        event: 'media',
        streamSid: admitted.caller.streamSid,
        media: {
          track: 'inbound',
          timestamp: String(365 * 86_400_000),
          payload: Buffer.alloc(160, 0xff).toString('base64'),
        },
      }),
    );
    admitted.ws.send(JSON.stringify(admitted.caller.stop()));
    admitted.ws.close();
    const ended = await eventually(async () => {
      const current = await run.read();
      return current?.status !== 'in_progress' ? current : undefined;
    });
    expect(ended!.recording_key).toEqual(expect.any(String));
    const { body } = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}`, { key: org.key });
    const wav = Buffer.from(await (await fetch(body.recording_download_url)).arrayBuffer());
    // The greeting only (well under a second of audio): neither the 12 KB frame nor the year-long gap made it in.
    expect(wav.length).toBeLessThan(10_000);
  });
});

describe.skipIf(needsLocalStack)('a media task at its most calls', () => {
  it('refuses one more stream cleanly: the provider gets a closed stream, the run ends failed saying why', async () => {
    Object.assign(process.env, inject('stackEnv'));
    const [{ startMediaService }, { platformProviders }, { startFakeVoiceProviders }] = await Promise.all([
      import('../../media/src/service.ts'),
      import('../../media/src/agent/providers.ts'),
      import('../../local/fakes/voice-providers.ts'),
    ]);
    const fakes = await startFakeVoiceProviders();
    // A task of its own, in this process, holding one call at most.
    const media = await startMediaService({
      port: 0,
      host: '127.0.0.1',
      calls: { providers: platformProviders(fakes.settings, fakes.readKeys), settings: fakes.settings },
      log: () => {},
      telemetry: NO_TELEMETRY,
      maxCalls: 1,
    });
    const url = `ws://127.0.0.1:${media.port}/media`;
    try {
      const [first, second] = [await waitingRun(), await waitingRun()];
      const held = await stream({ runRef: first.runRef, streamToken: first.token }, () => {}, url);
      await eventually(async () => (await first.read())?.answered_at ?? undefined);
      const refused = await stream({ runRef: second.runRef, streamToken: second.token }, () => {}, url);
      expect(await refused.closed).toBe(1008);
      const ended = await eventually(async () => {
        const run = await second.read();
        return run?.status !== 'in_progress' ? run : undefined;
      });
      expect(ended).toMatchObject({ status: 'failed', answered_at: null });
      expect(ended!.logs.at(-1)!.message).toBe('Call refused: the media task is at capacity (1 calls)');
      // The call it holds goes on; once it ends, the next one is taken.
      expect((await first.read())?.status).toBe('in_progress');
      held.ws.close();
      await held.closed;
      const third = await waitingRun();
      const next = await stream({ runRef: third.runRef, streamToken: third.token }, () => {}, url);
      await eventually(async () => (await third.read())?.answered_at ?? undefined);
      next.ws.close();
    } finally {
      await media.close();
      await fakes.stop();
    }
  }, 30_000);
});
