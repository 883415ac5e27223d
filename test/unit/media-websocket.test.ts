import { createServer } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { parseWavHeader } from '../../media/src/audio/wav.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import type { SessionResult } from '../../media/src/call/call-types.ts';
import { SimulatedCaller } from '../../media/src/streams/simulated-caller.ts';
import { attachMediaStreams, HANGUP_MARK, type MediaStreamsOptions } from '../../media/src/streams/websocket-server.ts';
import { callInput, voiceFakes } from '../support/voice.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(extra: Partial<MediaStreamsOptions<null>> = {}) {
  const server = createServer((_request, response) => response.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const fakes = await voiceFakes();
  cleanups.push(fakes.stop);
  const finished: SessionResult[] = [];
  const onFinished = vi.fn(async (result: SessionResult) => void finished.push(result));
  cleanups.push(async () => {
    for (const result of finished) await result.recording?.dispose();
  });
  const handle = attachMediaStreams(
    server,
    '/media-stream',
    (send) =>
      new CallPipeline({
        prepare: fakes.prepare(
          callInput({ workflowDefinition: { greeting: 'Hello, this is Ann.' }, dispositionCodes: { reached: {} } }),
        ),
        send,
      }),
    onFinished,
    // Admission has its own tests (media-stream-admission.test.ts): here every stream is let in.
    {
      admit: async (claim) => ({ accepted: true, runRef: claim.runRef ?? '', admitted: null }),
      maxCallSeconds: 3600,
      ...extra,
    },
  );
  cleanups.push(() => handle.close());
  return { port: (server.address() as AddressInfo).port, onFinished, finished, handle };
}

describe('attachMediaStreams', () => {
  it('refuses an SDP offer where no peer leg takes it: an error frame naming why, then 4501', async () => {
    const why = 'peer-to-peer WebRTC is not served by this deployment: use mode webrtc';
    const { port } = await startServer({ peerLeg: () => undefined, peerLegUnavailable: why });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/media-stream`);
    const received: { event: string; detail?: string }[] = [];
    ws.on('message', (data) => received.push(JSON.parse(String(data)) as (typeof received)[number]));
    const closed = new Promise<[number, string]>((resolve) =>
      ws.on('close', (code, reason) => resolve([code, String(reason)])),
    );
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    for (const message of new SimulatedCaller({ runRef: '4.5.7' }).start()) ws.send(JSON.stringify(message));
    ws.send(JSON.stringify({ event: 'offer', sdp: 'v=0' }));
    expect(await closed).toEqual([4501, why]);
    expect(received.filter((frame) => frame.event === 'error')).toEqual([{ event: 'error', detail: why }]);
  });

  it('runs a call over a real WebSocket: greeting, one turn, hang-up mark, close, onFinished once', async () => {
    const { port, onFinished, finished } = await startServer();
    const ws = new WebSocket(`ws://127.0.0.1:${port}/media-stream`);
    const received: { event: string; streamSid?: string; mark?: { name: string } }[] = [];
    const caller = new SimulatedCaller({ streamSid: 'MZws', runRef: '4.5.6' });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as (typeof received)[number];
      received.push(message);
      // Behave like the provider: acknowledge the hang-up mark once it has "played".
      if (message.event === 'mark' && message.mark?.name === HANGUP_MARK)
        ws.send(JSON.stringify(caller.mark(HANGUP_MARK)));
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

    const greeted = new Promise<void>((resolve) =>
      ws.on('message', (data) => String(data).includes('"reply-1"') && resolve()),
    );
    for (const message of caller.start()) ws.send(JSON.stringify(message));
    await greeted;
    ws.send('not json'); // ignored, the call continues
    for (const message of [...caller.silence(1200), ...caller.say('Goodbye.'), ...caller.silence(500)])
      ws.send(JSON.stringify(message));

    expect(await closed).toBe(1000);
    await vi.waitFor(() => expect(onFinished).toHaveBeenCalledOnce());
    const marks = received.filter((m) => m.event === 'mark').map((m) => m.mark!.name);
    expect(marks).toEqual(['reply-1', 'reply-2', HANGUP_MARK]);
    expect(received.filter((m) => m.event === 'media').every((m) => m.streamSid === 'MZws')).toBe(true);
    const [result] = finished;
    expect(result).toMatchObject({
      runRef: '4.5.6',
      reason: 'closed',
      failure: null,
      gathered: { call_disposition: 'reached' },
    });
    expect(result!.fragments.map((f) => f.text)).toEqual([
      'Hello, this is Ann.',
      'Goodbye.',
      'Thank you for your time. Goodbye.',
    ]);
    expect(parseWavHeader(await result!.recording!.read()).sampleRate).toBe(8000);
    await result!.recording!.dispose();
  });

  it("sends the agent's frames of a chunk of speech in one socket write, each frame as before", async () => {
    const { port } = await startServer();
    // The server's writes to this connection: each is a system call, one per frame without corking.
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = Socket.prototype[method] as (...args: unknown[]) => void;
      const spy = vi.spyOn(Socket.prototype, method).mockImplementation(function (this: Socket, ...args: unknown[]) {
        if (this.localPort === port) writes += 1;
        return original.apply(this, args);
      });
      cleanups.push(async () => spy.mockRestore());
    }
    const ws = new WebSocket(`ws://127.0.0.1:${port}/media-stream`);
    const media: unknown[] = [];
    const greeted = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { event: string; mark?: { name: string } };
        if (message.event === 'media') media.push(message);
        if (message.event === 'mark' && message.mark?.name === 'reply-1') resolve();
      }),
    );
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const caller = new SimulatedCaller({ streamSid: 'MZcork', runRef: '4.5.8' });
    writes = 0;
    for (const message of caller.start()) ws.send(JSON.stringify(message));
    await greeted;
    ws.close();
    // "Hello, this is Ann.": a frame a character, in the one or two writes of its chunks.
    expect(media.length).toBeGreaterThanOrEqual(19);
    expect(writes).toBeLessThanOrEqual(media.length / 4);
    expect(media[0]).toEqual({ event: 'media', streamSid: 'MZcork', media: { payload: expect.any(String) } });
    expect(Object.keys(media[0] as object)).toEqual(['event', 'streamSid', 'media']);
  });

  it('finishes once on stop, and refuses other upgrade paths', async () => {
    const { port, onFinished, finished } = await startServer();
    const ws = new WebSocket(`ws://127.0.0.1:${port}/media-stream`);
    await new Promise((resolve) => ws.once('open', resolve));
    const caller = new SimulatedCaller({ runRef: '9.9.9' });
    for (const message of [...caller.start(), ...caller.silence(100), caller.stop()]) ws.send(JSON.stringify(message));
    await vi.waitFor(() => expect(onFinished).toHaveBeenCalledOnce());
    ws.close();
    await new Promise((resolve) => ws.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20)); // a late close must not call onFinished again
    expect(onFinished).toHaveBeenCalledOnce();
    expect(finished[0]).toMatchObject({ runRef: '9.9.9', reason: 'stop' });

    const other = new WebSocket(`ws://127.0.0.1:${port}/elsewhere`);
    const status = await new Promise<number | undefined>((resolve) => {
      other.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      other.once('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  it.each([
    ['closes', (ws: WebSocket) => ws.close()],
    [
      'breaks a rule (too many frames before admission)',
      (ws: WebSocket, caller: SimulatedCaller) => {
        for (const message of caller.silence(260 * 20)) ws.send(JSON.stringify(message));
      },
    ],
  ])(
    'a stream that %s while its run is admitted still ends that run: its session starts and finishes as closed',
    async (_what, leave) => {
      // The admission takes the run (in progress, one of the organization's channels): only a session ends it.
      let letIn!: () => void;
      const checked = new Promise<void>((resolve) => (letIn = resolve));
      const admit = vi.fn(async (claim: { runRef: string | null }) => {
        await checked;
        return { accepted: true as const, runRef: claim.runRef ?? '', admitted: null };
      });
      const { port, onFinished, finished, handle } = await startServer({ admit });
      const ws = new WebSocket(`ws://127.0.0.1:${port}/media-stream`);
      await new Promise((resolve) => ws.once('open', resolve));
      const caller = new SimulatedCaller({ runRef: '4.5.8' });
      for (const message of caller.start()) ws.send(JSON.stringify(message));
      await vi.waitFor(() => expect(admit).toHaveBeenCalledOnce());
      leave(ws, caller);
      await vi.waitFor(() => expect(handle.activeConnections).toBe(0));
      letIn();
      await vi.waitFor(() => expect(onFinished).toHaveBeenCalledOnce());
      // Nothing was said: the session ended before its greeting.
      expect(finished[0]).toMatchObject({ runRef: '4.5.8', reason: 'closed', fragments: [] });
    },
  );
});
