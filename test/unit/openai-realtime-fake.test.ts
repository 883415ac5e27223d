import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { startFakeRealtime, type FakeRealtime } from '../../local/fakes/openai-realtime.ts';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';

let fake: FakeRealtime | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

/** The SDK's WebSocket client on the fake, every server event kept. */
async function connect(apiKey = 'rt-key') {
  fake ??= await startFakeRealtime({ apiKey: 'rt-key' });
  const client = new OpenAI({ apiKey, baseURL: fake.url });
  const socket = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: fake.ca } }, client);
  const events: RealtimeServerEvent[] = [];
  const errors: string[] = [];
  socket.on('event', (event) => events.push(event));
  socket.on('error', (error) => errors.push(error.message));
  const opened = await new Promise<boolean>((resolve) => {
    socket.socket.once('open', () => resolve(true));
    socket.socket.once('error', () => resolve(false));
  });
  const next = (type: string) =>
    new Promise<RealtimeServerEvent>((resolve) => {
      const found = events.find((event) => event.type === type);
      if (found) return resolve(found);
      socket.on('event', (event) => event.type === type && resolve(event));
    });
  return { socket, events, errors, opened, next };
}

describe('the local OpenAI Realtime fake, through the openai package', () => {
  it('refuses a wrong key at the upgrade', async () => {
    const { opened } = await connect('wrong');
    expect(opened).toBe(false);
  });

  it('answers the events it takes, and an error event for what the API refuses', async () => {
    const { socket, next, events } = await connect();
    expect((await next('session.created')).type).toBe('session.created');
    socket.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.' } });
    expect(await next('session.updated')).toMatchObject({ session: { instructions: 'Be brief.' } });
    // Truncating an item that is not the assistant's, and an event the API does not know.
    socket.send({ type: 'conversation.item.truncate', item_id: 'item_nope', content_index: 0, audio_end_ms: 10 });
    socket.send({ type: 'response.cancel' });
    await expect.poll(() => events.filter((event) => event.type === 'error').length).toBe(2);
    expect(
      events
        .filter((event) => event.type === 'error')
        .map((event) => (event as { error: { code: string } }).error.code),
    ).toEqual(['item_truncate_invalid_item_id', 'response_cancel_not_active']);
    // An out-of-band response says the words it is given, in audio with its transcript, then its usage.
    socket.send({
      type: 'response.create',
      response: { conversation: 'none', instructions: 'Say exactly these words: "Hi."', metadata: { request: 'r1' } },
    });
    const done = (await next('response.done')) as Extract<RealtimeServerEvent, { type: 'response.done' }>;
    expect(done.response).toMatchObject({ status: 'completed', metadata: { request: 'r1' } });
    expect(done.response.usage?.output_token_details?.audio_tokens).toBeGreaterThan(0);
    expect(events.find((event) => event.type === 'response.output_audio_transcript.done')).toMatchObject({
      transcript: 'Hi.',
    });
    expect((await next('rate_limits.updated')).type).toBe('rate_limits.updated');
    socket.close();
  });
});

describe("the fake's usage, counted as the API bills it", () => {
  type Done = Extract<RealtimeServerEvent, { type: 'response.done' }>;
  const usageOf = async (socket: OpenAIRealtimeWS, events: RealtimeServerEvent[], response: object) => {
    const before = events.filter((event) => event.type === 'response.done').length;
    socket.send({ type: 'response.create', response });
    await expect.poll(() => events.filter((event) => event.type === 'response.done').length).toBe(before + 1);
    return (events.filter((event) => event.type === 'response.done').at(-1) as Done).response.usage!;
  };

  it('caches the prompt a response begins as the last one did (1,024 tokens and up, in steps of 128); out of band with its own input reads only that', async () => {
    const { socket, next, events } = await connect();
    // About 1,250 tokens of instructions: a prompt the API caches.
    const instructions = `You help callers. ${'Answer briefly and politely. '.repeat(170)}`;
    socket.send({ type: 'session.update', session: { type: 'realtime', instructions } });
    await next('session.updated');
    const first = await usageOf(socket, events, {});
    expect(first.input_token_details).toMatchObject({
      cached_tokens: 0,
      cached_tokens_details: { text_tokens: 0, audio_tokens: 0 },
    });
    expect(first.input_token_details!.text_tokens).toBeGreaterThan(1024);
    const second = await usageOf(socket, events, {});
    const cached = second.input_token_details!.cached_tokens!;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(first.input_token_details!.text_tokens!);
    expect(second.input_token_details!.cached_tokens_details).toEqual({ text_tokens: cached, audio_tokens: 0 });
    // Other instructions begin another prompt: nothing of it is cached.
    const other = await usageOf(socket, events, { instructions: `${instructions} Be cheerful.` });
    expect(other.input_token_details!.cached_tokens).toBe(0);
    // Out of band, with no input: the short instructions alone, no conversation, no audio.
    const phrase = await usageOf(socket, events, {
      conversation: 'none',
      input: [],
      instructions: 'Say exactly these words: "Hi."',
    });
    expect(phrase.input_token_details).toMatchObject({ audio_tokens: 0, cached_tokens: 0 });
    expect(phrase.input_token_details!.text_tokens).toBeLessThan(30);
    expect(fake!.responses.map((response) => response.usage)).toEqual([first, second, other, phrase]);
    socket.close();
  });
});

describe("the fake's turn detection as the API documents it (`interrupt_response`, `create_response`)", () => {
  it.each([
    {
      name: "by default: the caller's voice cancels the response, the end of their turn starts one",
      settings: {},
      first: 'cancelled',
      answered: true,
    },
    {
      name: 'both off: the response plays on, the turn ends with no response (VAD events still sent)',
      settings: { interrupt_response: false, create_response: false },
      first: 'completed',
      answered: false,
    },
  ])('$name', async ({ settings, first, answered }) => {
    // Audio streamed over time, so the caller's voice comes while the response is under way.
    fake = await startFakeRealtime({ apiKey: 'rt-key', audioDeltaIntervalMs: 50 });
    const { socket, events, next } = await connect();
    socket.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: {
          input: {
            format: { type: 'audio/pcmu' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200, ...settings },
          },
        },
      },
    });
    await next('session.updated');
    socket.send({
      type: 'response.create',
      response: { instructions: `Say exactly these words: "${'One two three four five. '.repeat(4).trim()}"` },
    });
    await next('response.created');
    const append = (samples: Int16Array) =>
      socket.send({ type: 'input_audio_buffer.append', audio: encodeMulaw(samples).toString('base64') });
    append(synthesizeSpeech('Wait.'));
    await next('input_audio_buffer.speech_started');
    const done = (await next('response.done')) as Extract<RealtimeServerEvent, { type: 'response.done' }>;
    expect(done.response.status).toBe(first);
    append(new Int16Array(8000 * 0.3));
    await next('input_audio_buffer.speech_stopped');
    await next('input_audio_buffer.committed');
    // An out-of-band probe: once it is done, a response the turn started would have been created.
    socket.send({
      type: 'response.create',
      response: {
        conversation: 'none',
        instructions: 'Say exactly these words: "Probe."',
        metadata: { request: 'probe' },
      },
    });
    await expect
      .poll(() =>
        events.some((event) => event.type === 'response.done' && event.response.metadata?.request === 'probe'),
      )
      .toBe(true);
    const created = events.filter((event) => event.type === 'response.created' && !event.response.metadata);
    expect(created).toHaveLength(answered ? 2 : 1);
    socket.close();
  });
});
