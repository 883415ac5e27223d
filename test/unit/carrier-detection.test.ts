import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { SimulatedCarrier, type CarrierCall, type OutboundLine } from '../../local/carrier/carrier.ts';
import { talkAsCallee, type MediaStreamWire as Wire } from '../../local/carrier/callee-stream.ts';
import { answeringMachine } from '../../local/carrier/callee-directory.ts';

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A platform's media stream endpoint that counts the callee's frames until the stream's `stop`. */
async function platform() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const heard = { frames: 0, stopped: false };
  server.on('connection', (socket) =>
    socket.on('message', (data) => {
      const { event } = JSON.parse(String(data)) as { event: string };
      if (event === 'media' && !heard.stopped) heard.frames += 1;
      if (event === 'stop') heard.stopped = true;
    }),
  );
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, heard };
}

const wire: Wire = {
  connected: () => ({ event: 'connected' }),
  start: () => ({ event: 'start' }),
  media: (frame) => ({ event: 'media', media: frame }),
  mark: (name) => ({ event: 'mark', name }),
  dtmf: (digit) => ({ event: 'dtmf', digit }),
  stop: () => ({ event: 'stop' }),
};

describe('answering-machine detection on the simulated carrier', () => {
  it("judges a machine's greeting once its audio has gone out, however late the stream opened", async () => {
    const { url, heard } = await platform();
    const carrier = new SimulatedCarrier({ callSeconds: 30, ringMs: 0, linePace: 10 });
    const call: CarrierCall = { id: 'CA1', from: '+12125550100', to: '+48601234569', hangUp: new AbortController() };
    const verdicts: number[] = [];
    const line: OutboundLine<CarrierCall, void> = {
      ringing: async () => {},
      unanswered: async () => {},
      answered: async () => {},
      ended: async () => {},
      // The greeting's end is reported, and the platform hangs up at once (a hang-up, or the
      // voicemail message that replaces the stream): the stream stops after what went out by then.
      detect: async (detected, answerer, at) => {
        if (!(await at(answerer.greetingEndMs!))) return;
        verdicts.push(heard.frames);
        detected.hangUp.abort();
      },
      // The stream opens a while after the answer (the answer's webhook, the TwiML, the
      // WebSocket's handshake): longer here than the whole greeting lasts at this pace.
      talk: async (talking, machine) => {
        await sleep(600);
        await carrier.converse(talking, { url, hangUp: talking.hangUp.signal, frames: wire }, machine);
      },
    };
    await carrier.placeOutbound(call, line);
    expect(verdicts).toHaveLength(1);
    await expect.poll(() => heard.stopped).toBe(true);
    // Every frame of the greeting and its beep reached the platform before the stream stopped.
    expect(heard.frames).toBeGreaterThanOrEqual(answeringMachine(true).frames.length);
  });

  it("keeps the line's time when the machine stalls: the frames due go at once, stamped every 20 ms", async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const hangUp = new AbortController();
    const stamps: number[] = [];
    server.on('connection', (socket) =>
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { event: string; media?: { timestampMs: number } };
        if (message.event !== 'media') return;
        stamps.push(message.media!.timestampMs);
        // The event loop is held 400 ms after the first frame (the callee's timers with it).
        if (stamps.length === 1) for (const until = Date.now() + 400; Date.now() < until;);
        if (stamps.length === 40) hangUp.abort();
      }),
    );
    await talkAsCallee({
      url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
      wire,
      callSeconds: 30,
      pace: 1,
      hangUp: hangUp.signal,
      sockets: new Set(),
    });
    expect(stamps.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => i * 20));
  });
});
