import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallInput } from '../../media/src/agent/call-plan.ts';
import { OpenAiRealtime } from '../../media/src/agent/openai-realtime.ts';
import { startFakeRealtime, type FakeRealtimeOptions } from '../../local/fakes/openai-realtime.ts';
import { billed, realtimeCall as callOfRealtime, REALTIME_BASE, type Cleanups } from '../support/realtime-call.ts';
import { availabilityTool } from '../support/voice.ts';
import { northBankFlow } from '../support/flow-chat.ts';

const BASE = REALTIME_BASE;
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const realtimeCall = (input: Partial<CallInput>, options: Omit<FakeRealtimeOptions, 'apiKey'> = {}) =>
  callOfRealtime(cleanups, input, options);

describe('realtime engine (OpenAI Realtime API through openai/realtime, local fake)', () => {
  it('greets in the model voice, answers from what it heard, calls a tool, is cut off and truncated, and hangs up', async () => {
    const { fake, session, caller, sent, feed, say, listen, lines, fakes } = await realtimeCall({
      workflowDefinition: { greeting: 'Hi, this is Ann from Smile.', prompt: 'You book dental visits.' },
      passages: [
        { id: 'p1', document_id: 'doc_1', title: 'Hours', text: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
      ],
      tools: [availabilityTool(new Date(BASE).toISOString())],
    });
    const update = fake.received.find((event) => event.type === 'session.update') as unknown as {
      session: { tools: { name: string }[] };
    };
    expect(update.session).toMatchObject({
      type: 'realtime',
      instructions: expect.stringContaining('You book dental visits.'),
      audio: {
        input: { format: { type: 'audio/pcmu' }, turn_detection: { type: 'server_vad', create_response: false } },
        output: { format: { type: 'audio/pcmu' } },
      },
    });
    expect(update.session.tools.map((tool) => tool.name)).toContain('check_availability');
    // The greeting: an out-of-band response of the model, said word for word, in mu-law frames.
    expect(lines()).toEqual(['assistant: Hi, this is Ann from Smile.']);
    expect(sent.filter((message) => message.event === 'media')).toHaveLength('Hi, this is Ann from Smile.'.length);

    await listen();
    await say('What are your opening hours?');
    await listen();
    await say('Please check availability for tomorrow.');
    // The answer plays for a while yet: 300 ms into it the caller cuts in. The model's turn
    // detection hears their voice: the reply's audio pauses (cleared at the provider, held), the
    // model's item untouched until their words show they cut in.
    await feed(caller.silence(300));
    const words = caller.say('Wait.');
    await feed(words.slice(0, 1));
    await vi.waitFor(() => expect(sent.at(-1)).toMatchObject({ event: 'clear' }));
    expect(fake.received.some((event) => event.type === 'conversation.item.truncate')).toBe(false);
    // The caller's turn, heard by the model: real words, so the reply is cut where it paused and the
    // model keeps only the audio that played; with its plan done, the fake model says the closing,
    // sets the disposition and ends the call (tools run by the call, their outputs to the model).
    await feed([...words.slice(1), ...caller.silence(700)]);
    await vi.waitFor(() =>
      expect(fake.received.some((event) => event.type === 'conversation.item.truncate')).toBe(true),
    );
    // The answer's audio played from the end of the turn: 300 ms of silence and the caller's first
    // 20 ms frame (the clock is at its timestamp's end when the model hears speech start).
    expect(fake.received.find((event) => event.type === 'conversation.item.truncate')).toMatchObject({
      content_index: 0,
      audio_end_ms: 320,
    });
    await session.hangUpRequested;
    await listen();
    await feed([caller.stop()]);
    const result = await session.finished;

    const transcript = result.fragments.map(({ role, text }) => `${role}: ${text}`);
    expect(transcript.slice(0, 4)).toEqual([
      'assistant: Hi, this is Ann from Smile.',
      'user: What are your opening hours?',
      'assistant: According to our information, Opening hours: Monday to Friday, 8:00 to 16:00.',
      'user: Please check availability for tomorrow.',
    ]);
    // The cut answer keeps the words that played (one character a 20 ms frame), back to a whole word.
    expect(transcript[4]).toBe('assistant: Done:');
    expect(transcript.slice(5)).toEqual(['user: Wait.', 'assistant: Thank you for your time. Goodbye.']);
    expect(result).toMatchObject({ failure: null, gathered: { call_disposition: 'confirmed' } });
    // The model's tokens for the run's cost: every response the API billed, the fixed phrases said
    // out of band (the greeting, the goodbye) among them.
    expect(fake.responses.filter((response) => response.conversation_id === null).length).toBeGreaterThan(0);
    expect(result.speechToSpeech).toEqual(billed(fake));
    expect(result.speechToSpeech!.inputAudioTokens).toBeGreaterThan(0);
    expect(result.speechToSpeech!.outputAudioTokens).toBeGreaterThan(0);
    expect(fakes.tools.calls).toHaveLength(1);
    const outputs = fake.received.filter((event) => event.type === 'conversation.item.create');
    expect(outputs).toContainEqual(
      expect.objectContaining({ item: expect.objectContaining({ type: 'function_call_output' }) }),
    );
  });
});

describe('realtime engine: an answer cut while it still streams', () => {
  it("keeps its words from the start: an item's transcript may begin before its audio", async () => {
    // Each 200 ms of the answer's audio comes 150 ms apart: the caller cuts in while it streams.
    const { fake, session, caller, sent, feed, listen } = await realtimeCall(
      {
        workflowDefinition: { greeting: 'Hello.', prompt: 'You answer questions about the clinic.' },
        passages: [
          { id: 'p1', document_id: 'doc_1', title: 'Hours', text: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
        ],
      },
      { audioDeltaIntervalMs: 150 },
    );
    await listen();
    const media = () => sent.filter((message) => message.event === 'media').length;
    const before = media();
    await feed([...caller.say('What are your opening hours?'), ...caller.silence(700)]);
    // The answer's first 200 ms were sent to the line: the caller cuts in 100 ms into them.
    await vi.waitFor(() => expect(media()).toBeGreaterThanOrEqual(before + 10));
    await feed(caller.silence(100));
    await feed([...caller.say('Stop.'), ...caller.silence(700)]);
    await vi.waitFor(() =>
      expect(session.fragments.map(({ role, text }) => `${role}: ${text}`)).toContain('user: Stop.'),
    );
    const answer = session.fragments.filter(({ role }) => role === 'assistant')[1]!.text;
    // What played of it (about 800 ms: one character a 20 ms frame), from its first word.
    expect(answer.length).toBeGreaterThan(0);
    expect('According to our information, Opening hours: Monday to Friday, 8:00 to 16:00.').toContain(
      answer.replace(/…$/, '').trim(),
    );
    expect(answer.startsWith('According')).toBe(true);
    // The cut answer is the model's own item (truncated there): it is not told again as the agent's
    // words, which would follow the caller's turn and make the model think it had answered it.
    const toldAsAgent = fake.received.filter(
      (event) =>
        event.type === 'conversation.item.create' &&
        JSON.stringify((event as { item?: unknown }).item).includes('According'),
    );
    expect(toldAsAgent).toEqual([]);
  });
});

describe('realtime engine: what the model did not hear', () => {
  it("a caller's text during the call is put in the model's conversation in words", async () => {
    const { fake, session } = await realtimeCall({ workflowDefinition: { greeting: 'Hello.' } });
    expect(
      await session.control({ type: 'caller_text', sms_id: 'sms_r1', from: '+48601234561', body: 'anna@example.com' }),
    ).toBeNull();
    await vi.waitFor(() =>
      expect(fake.received).toContainEqual(
        expect.objectContaining({
          type: 'conversation.item.create',
          item: {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: '(The caller texted: anna@example.com)' }],
          },
        }),
      ),
    );
  });
});

describe('a conversation flow on the realtime engine', () => {
  it("follows the steps: each step's instructions and functions go to the session, a transition function moves the call on", async () => {
    const { fake, session, caller, feed, say, listen, lines } = await realtimeCall({
      workflowDefinition: northBankFlow(undefined, { interruptible: true }),
      dispositionCodes: { card: 'Wants a card', loan: 'Wants a loan' },
    });
    const updates = () =>
      fake.received
        .filter((event) => event.type === 'session.update')
        .map((event) => event.session as { instructions: string; tools: { name: string }[] });
    // The session opens in the first step: its prompt, its variable to save, its way out.
    expect(updates()).toHaveLength(1);
    expect(updates()[0]!.instructions).toContain('Current step: Greeting');
    expect(updates()[0]!.tools.map((tool) => tool.name)).toEqual(['save_variables', 'end_call']);
    expect(lines()).toEqual(['assistant: Hello, this is North Bank. How old are you?']);

    await listen();
    // The model saves the age (a function call of the step); the variable test moves the call to
    // the offer, whose instructions and transition functions the session gets before the model says it.
    await say('I am 42 years old');
    expect(updates()).toHaveLength(2);
    expect(updates()[1]!.instructions).toContain('Current step: Offer');
    expect(updates()[1]!.tools.map((tool) => tool.name)).toEqual(['go_to_card', 'go_to_loan', 'end_call']);
    expect(lines().at(-1)).toBe('assistant: This call is recorded. A card or a loan?');

    await listen();
    await say('The card, please');
    await session.hangUpRequested;
    await listen();
    await feed([caller.stop()]);
    const result = await session.finished;
    expect(result.fragments.map(({ role, text }) => `${role}: ${text}`).slice(1)).toEqual([
      'user: I am 42 years old',
      'assistant: This call is recorded. A card or a loan?',
      'user: The card, please',
      'assistant: Your card is on its way. Goodbye.',
    ]);
    expect(result.gathered).toEqual({ age: 42, call_disposition: 'card' });
    expect(result.flow!.map((step) => [step.node_id, step.reason])).toEqual([
      ['start', 'age >= 18 held'],
      ['offer', 'the model judged "The caller wants the "card""'],
      ['card', null],
    ]);
    expect(result.failure).toBeNull();
    // The run's cost: the tokens of the session the flow steered, every response's.
    expect(result.speechToSpeech).toEqual(billed(fake));
    expect(result.speechToSpeech!.outputAudioTokens).toBeGreaterThan(0);
  });
});

/** A call's realtime session on a fake of its own (`apiKey`: the one the client sends; the fake's is rt-key). */
async function realtimeSession(apiKey = 'rt-key') {
  const fake = await startFakeRealtime({ apiKey: 'rt-key' });
  cleanups.push(fake.stop);
  const realtime = new OpenAiRealtime({ apiUrl: fake.url, apiKey, model: 'gpt-realtime', ca: fake.ca }).call();
  cleanups.push(async () => realtime.close());
  return { fake, realtime };
}

describe("the realtime session's connection opened while the phone rings", () => {
  const agent = { instructions: 'Be brief.', tools: [], language: 'en' };
  async function said(realtime: ReturnType<OpenAiRealtime['call']>, text: string) {
    let bytes = 0;
    for await (const chunk of realtime.voice.stream(text, { language: 'en' }, new AbortController().signal))
      bytes += chunk.length;
    return bytes;
  }

  it('connects early and configures the session on that connection at its first use', async () => {
    const { fake, realtime } = await realtimeSession();
    await realtime.connectEarly();
    // Connected (TLS, the upgrade) while it rings: nothing is asked of the model yet.
    expect(fake.sessions).toEqual(['gpt-realtime']);
    expect(fake.received).toEqual([]);
    realtime.agent = agent;
    expect(await said(realtime, 'Hello.')).toBe('Hello.'.length * 160);
    expect(fake.sessions).toHaveLength(1);
    expect(fake.received.map((event) => event.type)).toEqual(['session.update', 'response.create']);
  });

  it('an early connection refused fails the first words, naming the provider', async () => {
    const { realtime } = await realtimeSession('wrong');
    await expect(realtime.connectEarly()).rejects.toThrow(/OpenAI Realtime/);
    realtime.agent = agent;
    await expect(said(realtime, 'Hello.')).rejects.toThrow(/OpenAI Realtime/);
  });
});

describe('the conversation runs one response at a time', () => {
  it('a response asked as a cancelled one ends waits for its response.done (the API refuses a second one)', async () => {
    const { fake, realtime } = await realtimeSession();
    realtime.agent = { instructions: 'Be brief.', tools: [], language: 'en' };
    const events: { type: string; code?: string }[] = [];
    realtime.on((event) =>
      events.push({ type: event.type, ...(event.type === 'error' ? { code: event.error.code ?? '' } : {}) }),
    );
    const long = `Say exactly: "${'This answer is long. '.repeat(20).trim()}"`;
    const first = await realtime.respond({ instructions: long });
    // A barge-in: the answer is cancelled and the caller's turn answered at once.
    await realtime.send({ type: 'response.cancel', response_id: first });
    const second = await realtime.respond({ instructions: 'Say exactly: "Yes?"' });
    expect(second).not.toBe(first);
    await vi.waitFor(() => expect(events.filter((event) => event.type === 'response.done')).toHaveLength(2));
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    // Both are billed, the cancelled one too: the session counts every response's tokens.
    expect(fake.responses.map((response) => response.status)).toEqual(['cancelled', 'completed']);
    expect(realtime.usage()).toEqual(billed(fake));
  });
});

describe('realtime engine failures', () => {
  it('a rate-limited response fails the call naming the Realtime API and its reason; the session closes', async () => {
    const { fake, session, caller, feed } = await realtimeCall(
      { workflowDefinition: { greeting: 'Hello.' } },
      { rateLimitFromResponse: 2 },
    );
    await feed([...caller.say('Hi there.'), ...caller.silence(700)]);
    const hangUp = await session.hangUpRequested;
    expect(hangUp).toBeDefined();
    const result = await session.finish('closed');
    await result.recording?.dispose();
    expect(result.failure).toBe(
      'OpenAI Realtime: response failed: rate_limit_exceeded (Rate limit reached for requests)',
    );
    // The apology is the same model's voice: nothing more is asked of it.
    expect(fake.received.filter((event) => event.type === 'response.create')).toHaveLength(2);
  });
});

describe("a realtime turn's latency", () => {
  it("puts the model's time to its first audio in model_ms, not text to speech; the components sum to voice-to-voice", async () => {
    const { session, say, listen } = await realtimeCall({
      workflowDefinition: { greeting: 'Hi, this is Ann from Smile.', prompt: 'You book dental visits.' },
    });
    await listen();
    await say('Hello there.');
    const [turn] = session.latency.measuredTurns();
    expect(turn).toMatchObject({ turn: 1, model_ms: expect.any(Number), voice_to_voice_ms: expect.any(Number) });
    expect(turn!.text_to_speech_ms).toBe(0);
    const { transcription_ms, endpointing_ms, model_ms, tools_ms, text_to_speech_ms, overhead_ms } = turn!;
    const parts = [transcription_ms, endpointing_ms, model_ms, text_to_speech_ms, overhead_ms];
    expect(parts.every((part) => part !== null)).toBe(true);
    expect(parts.reduce((sum, part) => sum! + part!, tools_ms ?? 0)).toBe(turn!.voice_to_voice_ms);
  });
});
