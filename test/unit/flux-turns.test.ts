import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeDeepgram } from '../../local/fakes/deepgram-live.ts';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../../media/src/streams/simulated-caller.ts';
import { callInput, voiceFakes } from '../support/voice.ts';

const BASE = Date.parse('2026-11-26T10:00:00.000Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A call through the real Deepgram client (`listen.v2`, Flux) against the local Deepgram, whose
 * Flux ends a turn after a complete sentence and waits through a pause in the middle of one
 * (local/fakes/deepgram-flux.ts). The session's clock follows the media timestamps.
 */
async function fluxCall(turnTaking: Record<string, unknown>) {
  const fakes = await voiceFakes();
  cleanups.push(fakes.stop);
  let now = BASE;
  const logs: string[] = [];
  const session = new CallPipeline({
    prepare: fakes.prepare(callInput({ workflowConfigurations: { first_message: 'Hello.', turn_taking: turnTaking } })),
    send: () => {},
    clock: () => now,
    log: (_level, message) => logs.push(message),
  });
  cleanups.push(async () => (await session.finish('closed')).recording?.dispose());
  const caller = new SimulatedCaller({ streamSid: 'MZflux', runRef: '1.2.3' });
  const feed = async (messages: MediaStreamMessage[]) => {
    for (const message of messages) {
      const media = message.media as { timestamp?: string } | undefined;
      if (media?.timestamp !== undefined) now = BASE + Number(media.timestamp);
      await session.handle(message);
    }
  };
  await feed(caller.start());
  await session.opened;
  await session.idle();
  await feed(caller.silence(Math.max(0, session.playbackEndMs - caller.elapsedMs) + 200));
  const lines = (role: string) =>
    session.fragments.filter((fragment) => fragment.role === role).map((fragment) => fragment.text);
  const callerWords = () => fakes.openai.chatRequests.map((request) => request.messages.at(-1)?.content);
  return { fakes, session, caller, feed, lines, logs, callerWords };
}

describe('Deepgram Flux as the end of turn (turn_taking.end_of_turn: flux)', () => {
  it("opens Flux (listen.v2) with the end-of-turn settings, and ends a complete sentence's turn before a 300 ms pause would", async () => {
    const { fakes, caller, feed, lines, session } = await fluxCall({ end_of_turn: 'flux' });
    const query = fakes.deepgram.connections[0]!;
    expect(Object.fromEntries(query)).toMatchObject({
      model: 'flux-general-en',
      encoding: 'mulaw',
      sample_rate: '8000',
      eot_threshold: '0.7',
      eot_timeout_ms: '5000',
    });
    expect(query.has('eager_eot_threshold')).toBe(false);
    // 200 ms of silence after "Yes.": nova-3's endpointing (300 ms) could not have ended it yet.
    await feed([...caller.say('Yes.'), ...caller.silence(200)]);
    await vi.waitFor(() => expect(lines('assistant')).toHaveLength(2), { timeout: 5000 });
    await session.idle();
    expect(lines('user')).toEqual(['Yes.']);
  });

  it('does not end the turn at a pause in the middle of a sentence (late): the number read with pauses is one turn', async () => {
    const { caller, feed, lines, session, callerWords } = await fluxCall({ end_of_turn: 'flux' });
    await feed([...caller.say('My number is 555,'), ...caller.silence(900)]);
    await feed([...caller.say(' 1234.'), ...caller.silence(300)]);
    await vi.waitFor(() => expect(lines('assistant')).toHaveLength(2), { timeout: 5000 });
    await session.idle();
    expect(lines('user')).toEqual(['My number is 555, 1234.']);
    expect(callerWords()).toEqual(['My number is 555, 1234.']); // the model was asked once, with the whole number
  });

  it('ends an unfinished sentence at eot_timeout_ms (5 s) when the caller says no more', async () => {
    const { caller, feed, lines, session } = await fluxCall({ end_of_turn: 'flux' });
    await feed([...caller.say('Well, I think'), ...caller.silence(4000)]);
    expect(lines('user')).toEqual([]);
    await feed(caller.silence(1200));
    await vi.waitFor(() => expect(lines('user')).toEqual(['Well, I think']), { timeout: 5000 });
    await vi.waitFor(() => expect(lines('assistant')).toHaveLength(2), { timeout: 5000 });
    await session.idle();
  });

  it('starts the answer at the eager end of turn and says it at the end of turn (early)', async () => {
    const { fakes, caller, feed, lines, session } = await fluxCall({ end_of_turn: 'flux', eager_end_of_turn: true });
    expect(fakes.deepgram.connections[0]!.get('eager_eot_threshold')).toBe('0.5');
    const asked = fakes.openai.chatRequests.length;
    await feed([...caller.say('Yes.'), ...caller.silence(140)]); // eager at 140 ms of silence, the end at 180
    await vi.waitFor(() => expect(fakes.openai.chatRequests).toHaveLength(asked + 1), { timeout: 5000 }); // the model asked early
    expect(lines('assistant')).toHaveLength(1); // and nothing said yet
    await feed(caller.silence(200));
    await vi.waitFor(() => expect(lines('assistant')).toHaveLength(2), { timeout: 5000 });
    await session.idle();
    expect(fakes.openai.chatRequests).toHaveLength(asked + 1); // the early answer was the answer
    expect(lines('user')).toEqual(['Yes.']);
    expect(session.latency.turns).toHaveLength(1);
  });

  it('throws the early answer away when the caller goes on after an eager end of turn (cancelled)', async () => {
    const { fakes, caller, feed, lines, session, logs } = await fluxCall({
      end_of_turn: 'flux',
      eager_end_of_turn: true,
    });
    const asked = fakes.openai.chatRequests.length;
    await feed([...caller.say('Yes.'), ...caller.silence(140)]);
    await vi.waitFor(() => expect(fakes.openai.chatRequests).toHaveLength(asked + 1), { timeout: 5000 });
    await feed([...caller.say(' And tomorrow too.'), ...caller.silence(300)]);
    await vi.waitFor(() => expect(lines('assistant')).toHaveLength(2), { timeout: 5000 });
    await session.idle();
    expect(logs).toContain('early answer thrown away: the caller went on');
    expect(lines('user')).toEqual(['Yes. And tomorrow too.']);
    // The model answered the whole turn, without the words it was first asked about.
    const last = fakes.openai.chatRequests.at(-1)!.messages;
    expect(last.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'Yes. And tomorrow too.',
    ]);
    expect(session.latency.turns).toHaveLength(1);
  });
});

describe("the local Flux hears a browser's microphone (speech off the frames' grid, in 128-sample chunks)", () => {
  it('ends the turn with the words said', async () => {
    const deepgram = await startFakeDeepgram({ apiKey: 'key' });
    cleanups.push(deepgram.stop);
    const socket = new WebSocket(`${deepgram.url}/v2/listen?model=flux-general-en&encoding=mulaw&sample_rate=8000`, {
      headers: { Authorization: 'Token key' },
    });
    cleanups.push(async () => socket.close());
    const ended: string[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; event?: string; transcript?: string };
      if (message.event === 'EndOfTurn') ended.push(message.transcript!);
    });
    await new Promise((resolve) => socket.once('open', resolve));
    const speech = synthesizeSpeech('What are your opening hours?');
    const bytes = encodeMulaw(Int16Array.from([...new Int16Array(880), ...speech, ...new Int16Array(4000)]));
    for (let start = 0; start < bytes.length; start += 128) socket.send(bytes.subarray(start, start + 128));
    await vi.waitFor(() => expect(ended).toEqual(['What are your opening hours?']));
  });
});
