/**
 * Handsets on the local carrier (local/carrier/handsets.ts) reached through the local Telnyx: an
 * agent test's caller of an organization whose own telephony is Telnyx holds its phone there too.
 * The two local providers share one set of handsets, as the local stack starts them, so a phone
 * picked up at either is reached by a call through the local Telnyx, its side framed as Telnyx
 * frames a media stream; what the platform sends reaches the phone as sent.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { Handsets } from '../../local/carrier/handsets.ts';
import { startLocalTelnyx, type LocalTelnyx, type SimulatedTelnyxAccount } from '../../local/carrier/telnyx-wire.ts';
import { startLocalTwilio, type LocalTwilio } from '../../local/carrier/twilio-wire.ts';
import { testCallerNumber } from '../../shared/domain/voice-test-line.ts';

const OWN_NUMBER = '+48221234567';
const handsets = new Handsets();
let twilio: LocalTwilio;
let telnyx: LocalTelnyx;
let account: SimulatedTelnyxAccount;
/** The platform's media endpoint: every stream the carrier opens, with the frames it got. */
let platform: WebSocketServer;
const streams: { socket: WebSocket; frames: Record<string, any>[] }[] = [];

beforeAll(async () => {
  const carrier = { callSeconds: 1, ringMs: 10, handsets };
  twilio = await startLocalTwilio({
    ...carrier,
    account: { sid: `AC${'0'.repeat(32)}`, authToken: 't' },
    callsPerSecond: 10,
  });
  telnyx = await startLocalTelnyx(carrier);
  account = telnyx.createAccount([OWN_NUMBER]);
  platform = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => platform.once('listening', resolve));
  platform.on('connection', (socket) => {
    const stream = { socket, frames: [] as Record<string, any>[] };
    streams.push(stream);
    socket.on('message', (data) => stream.frames.push(JSON.parse(String(data))));
  });
});

afterAll(async () => {
  await Promise.all([twilio.stop(), telnyx.stop()]);
  handsets.stop();
  await new Promise((resolve) => platform.close(resolve));
});

async function pickUp(url: string): Promise<{ socket: WebSocket; heard: string[] }> {
  const socket = new WebSocket(url);
  const heard: string[] = [];
  socket.on('message', (data) => heard.push(String(data)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, heard };
}

describe('a handset on the local carrier, called through the local Telnyx', () => {
  it.each([
    ['the local Twilio (the local stack gives both providers its handsets)', () => twilio.handsetsUrl],
    ['the local Telnyx', () => telnyx.handsetsUrl],
  ])('picked up at %s: its side streams in Telnyx frames, the platform reaches it', async (_where, handsetsUrl) => {
    const number = testCallerNumber(Math.random());
    const handset = await pickUp(`${handsetsUrl()}${encodeURIComponent(number)}`);
    const opened = streams.length;
    const dialed = await fetch(`${telnyx.apiUrl}/calls`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.api_key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        connection_id: account.connection_id,
        to: number,
        from: OWN_NUMBER,
        stream_url: `ws://127.0.0.1:${(platform.address() as AddressInfo).port}/stream`,
      }),
    });
    expect(dialed.status).toBe(200);
    const callControlId = ((await dialed.json()) as { data: { call_control_id: string } }).data.call_control_id;
    await vi.waitFor(() => expect(streams[opened]?.frames).toHaveLength(2), { timeout: 10_000 });
    const stream = streams[opened]!;
    const [connected, start] = stream.frames;
    expect(connected).toEqual({ event: 'connected', version: '1.0.0' });
    expect(start).toMatchObject({
      event: 'start',
      sequence_number: '1',
      start: { call_control_id: callControlId, to: number, from: OWN_NUMBER, media_format: { encoding: 'PCMU' } },
    });
    const streamId = start!.stream_id;

    // The phone's frames reach the platform as Telnyx sends them: its sequence numbers, stream id, chunks and timestamps.
    handset.socket.send(JSON.stringify({ event: 'media', media: { payload: '//79' } }));
    handset.socket.send(JSON.stringify({ event: 'dtmf', dtmf: { digit: '4' } }));
    handset.socket.send(JSON.stringify({ event: 'mark', mark: { name: 'turn-1' } }));
    await vi.waitFor(() => expect(stream.frames).toHaveLength(5), { timeout: 10_000 });
    expect(stream.frames.slice(2)).toEqual([
      {
        event: 'media',
        sequence_number: '2',
        media: { track: 'inbound', chunk: '1', timestamp: '0', payload: '//79' },
        stream_id: streamId,
      },
      { event: 'dtmf', sequence_number: '3', dtmf: { digit: '4' }, stream_id: streamId },
      { event: 'mark', sequence_number: '0', mark: { name: 'turn-1' }, stream_id: streamId },
    ]);

    // The platform's frames reach the phone as sent.
    const agentAudio = JSON.stringify({ event: 'media', media: { payload: 'f39/' } });
    stream.socket.send(agentAudio);
    await vi.waitFor(() => expect(handset.heard).toEqual([agentAudio]), { timeout: 10_000 });

    // The phone hangs up: the stream stops and the call ends, hung up by the callee.
    handset.socket.send(JSON.stringify({ event: 'stop' }));
    await vi.waitFor(() => expect(stream.frames.at(-1)).toMatchObject({ event: 'stop', stream_id: streamId }), {
      timeout: 10_000,
    });
    await telnyx.idle();
    const stats = (await (await fetch(`${telnyx.origin}/_simulator/accounts/${account.connection_id}`)).json()) as {
      calls_ended: { call_control_id: string; hangup_source: string }[];
    };
    expect(stats.calls_ended).toContainEqual(
      expect.objectContaining({ call_control_id: callControlId, hangup_source: 'callee' }),
    );
  });
});
