import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { talkAsCallee, type MediaStreamWire } from '../../local/carrier/callee-stream.ts';
import { decodeMulaw, encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import type { CallerLine } from '../../media/src/streams/caller-script.ts';

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const wire: MediaStreamWire = {
  connected: () => ({ event: 'connected' }),
  start: () => ({ event: 'start' }),
  media: (frame) => ({ event: 'media', media: frame }),
  mark: (name) => ({ event: 'mark', mark: { name } }),
  dtmf: (digit) => ({ event: 'dtmf', digit }),
  stop: () => ({ event: 'stop' }),
};

/**
 * The simulated callee with `script`, against a platform whose agent reply comes in two pieces
 * with a stall between them (a loaded machine, a model slower than the line): `stalled` runs
 * during the stall; the reply's mark follows its second piece. Resolves with
 * when (line ms) the callee's first words went out; each piece is 400 ms of audio.
 */
async function calleeAgainstStalledReply(script: readonly CallerLine[], stallMs: number) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const hangUp = new AbortController();
  const spokeAt: number[] = [];
  server.on('connection', (socket: WebSocket) => {
    const piece = () =>
      socket.send(
        JSON.stringify({
          event: 'media',
          media: { payload: encodeMulaw(synthesizeSpeech('Hello there, this is')).toString('base64') },
        }),
      );
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; media?: { timestampMs: number; payload: string } };
      if (message.event === 'start')
        void (async () => {
          piece();
          await sleep(stallMs);
          piece();
          socket.send(JSON.stringify({ event: 'mark', mark: { name: 'reply-1' } }));
        })();
      if (message.event !== 'media') return;
      const samples = decodeMulaw(Buffer.from(message.media!.payload, 'base64'));
      if (samples.some((sample) => sample !== 0)) {
        spokeAt.push(message.media!.timestampMs);
        hangUp.abort();
      }
    });
  });
  await talkAsCallee({
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    wire,
    callSeconds: 30,
    pace: 10,
    hangUp: hangUp.signal,
    sockets: new Set(),
    script,
  });
  return spokeAt;
}

describe("the simulated callee waits for the agent's reply, however its audio is delivered", () => {
  it('answers after the reply is marked done, not in a stall in the middle of its audio', async () => {
    // 300 ms of wall time is 3 s on the line: far past the callee's pause before it answers.
    const spokeAt = await calleeAgainstStalledReply(['Yes.'], 300);
    // The stall began at most 400 ms of audio in (its first piece); the callee answered after the
    // second piece, which began no earlier than 3 s on the line.
    expect(spokeAt[0]).toBeGreaterThanOrEqual(3000);
  });

  it('talks over the agent while its audio plays, not in a stall of its delivery', async () => {
    const spokeAt = await calleeAgainstStalledReply([{ overAgent: 'The card, please' }], 300);
    expect(spokeAt[0]).toBeGreaterThanOrEqual(3000);
  });
});
