import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { MAX_KNOWLEDGE_TEXT_CHARS } from '../../shared/schemas/bounds.ts';
import { PHRASES } from '../../media/src/agent/phrases.ts';
import { BACKCHANNELS } from '../../shared/domain/backchannels.ts';
import { DeepgramSpeechToText } from '../../media/src/agent/deepgram-speech-to-text.ts';
import { platformProviders } from '../../media/src/agent/providers.ts';
import { startFakeDeepgram, type FakeDeepgram } from '../../local/fakes/deepgram-live.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseWavHeader } from '../../media/src/audio/wav.ts';
import { noise, synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import type { CallPipelineOptions } from '../../media/src/call/call-types.ts';
import type { FakeVoiceOptions } from '../../local/fakes/voice-providers.ts';
import type { CallInput } from '../../media/src/agent/call-plan.ts';
import { availabilityTool, callInput, voiceFakes } from '../support/voice.ts';
import {
  callAtTimeLimit,
  KEYPAD_ENTRIES,
  simulatedCall,
  keyOverAgent,
  keysPressed,
  phoneMenu,
  SCENARIO_AGENTS,
  silentCaller,
  sayThenEndWithGoodbye,
  endWithGoodbyeThenSay,
  sayThenEndNow,
} from '../support/call-scenarios.ts';

const BASE = Date.parse('2026-11-23T10:00:00.000Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A call between a SimulatedCaller (Media Streams frames) and a CallPipeline using the real
 * Deepgram, OpenAI and ElevenLabs clients against the local fakes. The session's clock follows the
 * media timestamps, as in a real call.
 */
async function call(
  input: Partial<CallInput>,
  fakeOptions: FakeVoiceOptions = {},
  timing?: CallPipelineOptions['timing'],
) {
  const fakes = await voiceFakes(fakeOptions);
  cleanups.push(fakes.stop);
  const started = await simulatedCall({
    base: BASE,
    prepare: fakes.prepare(callInput(input)),
    timing,
    endOfTurnMs: 400,
    streamSid: 'MZtest',
    cleanups,
  });
  return { fakes, ...started };
}

describe('voice agent call loop (real SDK clients, local provider fakes)', () => {
  it('greets, hears the caller, uses an HTTP tool, answers from the knowledge base, sets the disposition and hangs up', async () => {
    const { fakes, session, caller, sent, say, listen, feed } = await call({
      workflowDefinition: {
        greeting: 'Hi {{initial_context.name}}, this is Ann from Smile.',
        prompt: 'You book dental visits.',
      },
      initialContext: { name: 'Sam' },
      passages: [
        { id: 'p1', document_id: 'doc_1', title: 'Hours', text: 'Opening hours: Monday to Friday, 8:00 to 16:00.' },
        { id: 'p2', document_id: 'doc_1', title: 'Prices', text: 'A check-up costs 200 PLN.' },
      ],
      tools: [availabilityTool(new Date(BASE).toISOString())],
    });
    expect(session.fragments[0]).toEqual({
      timestamp: new Date(BASE).toISOString(),
      // Spoken for as long as its audio plays: one 20 ms frame per character.
      end: new Date(BASE + 'Hi Sam, this is Ann from Smile.'.length * 20).toISOString(),
      role: 'assistant',
      text: 'Hi Sam, this is Ann from Smile.',
    });
    const greetingFrames = sent.filter((message) => message.event === 'media');
    expect(greetingFrames.length).toBe('Hi Sam, this is Ann from Smile.'.length); // one 20 ms frame per character
    expect(
      greetingFrames.every(
        (frame) => frame.streamSid === 'MZtest' && Buffer.from(frame.media!.payload, 'base64').length === 160,
      ),
    ).toBe(true);
    expect(fakes.deepgram.connections[0]?.get('encoding')).toBe('mulaw');

    await listen();
    const askedAt = caller.elapsedMs;
    await say('What are your opening hours?');
    await listen();
    await say('Please check availability for tomorrow.');
    await listen();
    await say('Thank you, goodbye.');
    const hangUp = await session.hangUpRequested;
    expect(hangUp.playbackRemainingMs).toBeGreaterThan(0);
    await listen();
    await feed([caller.stop()]);
    const result = await session.finished;

    expect(result.fragments.map(({ role, text }) => `${role}: ${text}`)).toEqual([
      'assistant: Hi Sam, this is Ann from Smile.',
      'user: What are your opening hours?',
      'assistant: According to our information, Opening hours: Monday to Friday, 8:00 to 16:00.',
      'user: Please check availability for tomorrow.',
      expect.stringMatching(
        /^assistant: Done: \{"status":200,"body":"\{\\"ok\\":true,\\"tool_url\\":\\"https:\/\/clinic\.example\/slots\\"/,
      ),
      'user: Thank you, goodbye.',
      'assistant: Thank you for your time. Goodbye.',
    ]);
    expect(result.fragments[1]!.timestamp).toBe(new Date(BASE + askedAt).toISOString());
    expect(result).toMatchObject({ failure: null, gathered: { call_disposition: 'confirmed' } });
    expect(fakes.tools.calls).toEqual([
      { url: 'https://clinic.example/slots?day=Please+check+availability+for+tomorrow.', method: 'GET', body: '' },
    ]);
    expect(fakes.runLogs).toEqual([
      expect.stringMatching(/^Knowledge used for "What are your opening hours\?": \[Hours\] Opening hours/),
      'Knowledge used for "Please check availability for tomorrow.": [Prices] A check-up costs 200 PLN.',
      expect.stringMatching(
        /^Tool check_availability called with \{"day":"Please check availability for tomorrow\."\}: \{"status":200/,
      ),
      'Disposition chosen by the agent: confirmed',
    ]);
    // The model saw the prompt, the caller's words, the passage and the tools.
    const lastRequest = fakes.openai.chatRequests.at(-1)!;
    expect(lastRequest.messages[0]!.content).toContain('You are Ann');
    expect(lastRequest.messages[0]!.content).toContain('You book dental visits.');
    expect(lastRequest.tools!.map((tool) => tool.function.name)).toEqual([
      'check_availability',
      'set_call_disposition',
      'save_information',
      'end_call',
    ]);
    // Streaming: each sentence went to text-to-speech on its own, as soon as it was complete.
    expect(fakes.elevenlabs.texts.slice(-2)).toEqual(['Thank you for your time.', 'Goodbye.']);
    expect(parseWavHeader(await result.recording!.read()).sampleRate).toBe(8000);
  });

  it('stops talking at once when the caller barges in, keeping only the words that played', async () => {
    const long =
      'Good morning, I am calling about your visit tomorrow at nine, and I would like to confirm a few details with you.';
    const { session, caller, sent, feed, listen, say } = await call({
      workflowConfigurations: { first_message: long },
      workflowDefinition: { steps: ['Is this a good time to talk?'] },
    });
    expect(session.playbackEndMs).toBe(long.length * 20);
    await feed(caller.silence(500));
    await feed(caller.say('Wait')); // a word is not a word until it ends
    expect(sent.some((message) => message.event === 'clear')).toBe(false);
    await feed(caller.say(', '));
    await vi.waitFor(() => expect(sent.some((message) => message.event === 'clear')).toBe(true));
    const clearedAt = caller.elapsedMs;
    expect(sent.find((message) => message.event === 'clear')).toEqual({ event: 'clear', streamSid: 'MZtest' });
    expect(session.playbackEndMs).toBeLessThanOrEqual(clearedAt);
    await feed([...caller.say('who is this?'), ...caller.silence(400)]);
    await vi.waitFor(() => expect(session.fragments.length).toBe(3));
    await session.idle();
    const [greeting, heard, answer] = session.fragments;
    // Only the words that played before the caller spoke are in the transcript.
    expect(long.startsWith(greeting!.text)).toBe(true);
    expect(greeting!.text.length).toBeGreaterThan(10);
    expect(greeting!.text.length).toBeLessThanOrEqual((clearedAt / (long.length * 20)) * long.length);
    expect(heard).toMatchObject({ role: 'user', text: 'Wait, who is this?' });
    expect(answer).toMatchObject({ role: 'assistant', text: 'Is this a good time to talk?' });
    await listen();
    await say('Not really.'); // the plan is done: the model closes the call
    await session.hangUpRequested;
    expect(session.gathered).toEqual({ call_disposition: 'confirmed' });
  });

  it("a flow's disclosure (a step not interruptible) is not cut by the caller's words; the answer to them follows it", async () => {
    const disclosure =
      'This call is recorded for quality and training purposes, and your data stays with North Clinic.';
    const { session, caller, sent, feed, listen, say, agentLines } = await call({
      workflowDefinition: {
        nodes: [
          { id: 'start', type: 'startCall', name: 'Greeting', greeting: 'Hello.', prompt: 'Say "Hello again."' },
          { id: 'terms', type: 'agentNode', name: 'Terms', prompt: `Say "${disclosure}"`, interruptible: false },
          { id: 'done', type: 'endCall', name: 'Done', closing: 'Goodbye.' },
        ],
        edges: [
          { source: 'start', target: 'terms' },
          { source: 'terms', target: 'done', condition: 'The caller says "fine"' },
        ],
      },
    });
    await listen();
    await say('Hi there'); // the start is complete: the call enters the disclosure
    expect(agentLines()).toEqual(['Hello.', disclosure]);
    const playingUntil = session.playbackEndMs;
    await feed([...caller.say('Wait, who is this?'), ...caller.silence(400)]);
    expect(caller.elapsedMs).toBeLessThan(playingUntil); // the caller spoke over it
    await vi.waitFor(() => expect(agentLines()).toHaveLength(3));
    await session.idle();
    expect(sent.some((message) => message.event === 'clear')).toBe(false);
    expect(agentLines()).toEqual(['Hello.', disclosure, disclosure]); // said whole, then the answer after it
    const [first, second] = session.fragments.filter((fragment) => fragment.text === disclosure);
    expect(first!.end).toEqual(expect.any(String));
    expect(Date.parse(second!.timestamp)).toBeGreaterThanOrEqual(Date.parse(first!.end!));
    await listen();
    await say('That is fine');
    await session.hangUpRequested;
    expect(agentLines().at(-1)).toBe('Goodbye.');
  });

  it("keeps the caller's turn whose end was still on its way when the stream stopped (a voicemail replacing it): in the transcript, unanswered", async () => {
    const { session, feed, caller, agentLines } = await call({ workflowDefinition: { greeting: 'Hello.' } });
    await feed(caller.silence(200));
    // The pause ends the turn at Deepgram; its result is on the way back when the stream stops.
    await feed([...caller.say("Hi, you've reached Anna."), ...caller.silence(400), caller.stop()]);
    const result = await session.finish('stop');
    expect(result.fragments.filter((fragment) => fragment.role === 'user').map((fragment) => fragment.text)).toEqual([
      "Hi, you've reached Anna.",
    ]);
    expect(agentLines()).toEqual(['Hello.']);
  });

  it('asks whether the caller is still there after a silence, then says goodbye and hangs up', async () => {
    await silentCaller(await call(SCENARIO_AGENTS.silence));
  });

  it('ends the call at the maximum call length', async () => {
    await callAtTimeLimit(await call(SCENARIO_AGENTS.timeLimit));
  });

  it("says the control API's words, then its end's goodbye, then hangs up (say, then end)", async () => {
    await sayThenEndWithGoodbye(await call(SCENARIO_AGENTS.hello));
  });

  it("refuses the control API's say once an end with a goodbye is asked", async () => {
    await endWithGoodbyeThenSay(await call(SCENARIO_AGENTS.hello));
  });

  it("drops the control API's say when an end without a goodbye follows it at once", async () => {
    await sayThenEndNow(await call(SCENARIO_AGENTS.hello));
  });

  it('ends the call as failed when the model fails mid-call, apologising first and keeping the recording', async () => {
    const { session, feed, caller, listen, agentLines } = await call({}, { openai: { failFromRequest: 2 } });
    expect(agentLines()).toEqual(['Hello, this is Ann. How can I help you?']); // the model opened the call
    await listen();
    await feed([...caller.say('Hello?'), ...caller.silence(400)]);
    const hangUp = await session.hangUpRequested;
    expect(hangUp.playbackRemainingMs).toBe(PHRASES.en!.apology.length * 20); // the apology still plays
    const result = await session.finish('closed');
    expect(result.failure).toMatch(/^language model at 127\.0\.0\.1:\d+: 500/);
    expect(result.fragments.map((fragment) => fragment.text)).toEqual([
      'Hello, this is Ann. How can I help you?',
      'Hello?',
      PHRASES.en!.apology,
    ]);
    expect(parseWavHeader(await result.recording!.read()).dataBytes).toBeGreaterThan(8000);
  });

  it('fails the call when the speech-to-text stream drops again as soon as it is reopened', async () => {
    const { session, feed, caller, fakes } = await call(
      { workflowDefinition: { greeting: 'Hello.' } },
      { deepgram: { dropAfterAudioMs: 200 } },
    );
    await feed(caller.silence(300));
    await vi.waitFor(() => expect(fakes.deepgram.connections).toHaveLength(2));
    await feed(caller.silence(300));
    await session.hangUpRequested;
    expect((await session.finish('closed')).failure).toMatch(/^Deepgram: live stream closed \(1011/);
    expect(fakes.runLogs).toContainEqual(
      expect.stringMatching(/^Speech-to-text stream dropped \(live stream closed \(1011/),
    );
  });

  it('reopens a dropped speech-to-text stream once and goes on, the caller words on the call timeline', async () => {
    const { session, feed, caller, say, fakes, listen } = await call(
      { workflowDefinition: { greeting: 'Hello.' } },
      { deepgram: { dropAfterAudioMs: 1000, drops: 1 } },
    );
    await listen(1200);
    await vi.waitFor(() => expect(fakes.deepgram.connections).toHaveLength(2));
    const saidAt = caller.elapsedMs;
    await say('I would like a visit.');
    const heard = session.fragments.find((fragment) => fragment.role === 'user')!;
    expect(heard.text).toBe('I would like a visit.');
    // Where the caller spoke on the media clock, though the second stream's own time began at 0.
    expect(Date.parse(heard.timestamp) - BASE).toBe(saidAt);
    await feed(caller.silence(100));
    expect(session.isFinished).toBe(false);
    expect((await session.finish('closed')).failure).toBeNull();
  });

  it('does not stop talking for a sound without words (noise, a cough, an echo)', async () => {
    const long = 'Good morning, I am calling about your visit tomorrow at nine.';
    const { session, caller, sent, feed, listen, agentLines } = await call({
      workflowConfigurations: { first_message: long },
    });
    await feed(caller.silence(200));
    await feed(caller.audio(noise(8000 * 0.6)));
    await listen();
    expect(sent.some((message) => message.event === 'clear')).toBe(false);
    expect(agentLines()).toEqual([long]);
    expect(session.playbackEndMs).toBe(long.length * 20);
  });

  it('resumes the cut sentence when the words that stopped the agent are taken back (a false start)', async () => {
    const first = 'Good morning, I am calling about your visit.';
    const second = 'It is tomorrow at nine, with doctor Smith.';
    const { caller, sent, feed, listen, agentLines } = await call(
      { workflowConfigurations: { first_message: `${first} ${second}` } },
      { deepgram: { retractShorterThan: 4 } },
    );
    await feed(caller.silence(200));
    await feed(caller.say('uh ')); // heard as "uh" in an interim result: the agent stops
    await vi.waitFor(() => expect(sent.some((message) => message.event === 'clear')).toBe(true));
    await feed(caller.silence(400)); // the final result comes empty
    await vi.waitFor(() => expect(agentLines()).toHaveLength(2));
    await listen();
    const lines = agentLines();
    expect(lines).toHaveLength(2);
    expect(first.startsWith(lines[0]!)).toBe(true); // what played before the cut
    expect(lines[1]).toBe(`${first} ${second}`); // said again from the cut sentence
  });

  it.each([
    ['finals inside the utterance (is_final without speech_final)', { finalEveryWords: 2 }],
    ['an empty speech_final after the last final', { emptySpeechFinal: true }],
    ['no speech_final at all (UtteranceEnd ends the turn)', { noSpeechFinal: true }],
  ])('takes one whole caller turn from %s', async (_case, deepgram) => {
    const { session, feed, caller, agentLines } = await call(
      { workflowDefinition: { greeting: 'Hello.' } },
      { deepgram },
    );
    // Past utterance_end_ms (1 s), so UtteranceEnd comes where speech_final does not.
    await feed([...caller.say('I would like to book a visit for Monday morning.'), ...caller.silence(1200)]);
    await vi.waitFor(() => expect(agentLines()).toHaveLength(2));
    await session.idle();
    expect(session.fragments.filter((fragment) => fragment.role === 'user').map((fragment) => fragment.text)).toEqual([
      'I would like to book a visit for Monday morning.',
    ]);
  });

  it.each(KEYPAD_ENTRIES)(
    'hears keys the caller presses as a turn, ended by %s',
    async (_case, keypad, keys, entry) => {
      const started = await call(SCENARIO_AGENTS.keypad(keypad));
      await keysPressed(started, keys, entry);
      const asked = started.fakes.openai.chatRequests.at(-1)!.messages!.at(-1);
      expect(asked).toEqual({
        role: 'user',
        content: `(The caller pressed these keys on the phone's keypad: ${entry})`,
      });
    },
  );

  it('presses keys in a phone menu (send_digits): DTMF tones in its audio, in its turn', async () => {
    const started = await call(SCENARIO_AGENTS.sendsDigits);
    await phoneMenu(started);
    expect(started.fakes.runLogs).toContain('Keys sent by the agent: 2');
    expect(started.fakes.openai.chatRequests[1]!.tools!.map((tool) => tool.function.name)).toContain('send_digits');
  });

  it('ignores keys pressed on a call that has ended: no turn, nothing sent, nothing recorded', async () => {
    const { session, caller, feed, sent, fakes } = await call({
      workflowDefinition: { greeting: 'Hello.', steps: ['Thank you.'] },
      workflowConfigurations: { keypad: { collect_digits: 2 } },
    });
    await feed(caller.silence(300));
    const ended = await session.finish('stop');
    const [sentBefore, asked] = [sent.length, fakes.openai.chatRequests.length];
    await feed([caller.dtmf('1'), caller.dtmf('2')]);
    await session.idle();
    expect(sent.length).toBe(sentBefore);
    expect(fakes.openai.chatRequests.length).toBe(asked);
    expect(ended.fragments.some((fragment) => fragment.text.startsWith('[pressed'))).toBe(false);
    expect(session.fragments.some((fragment) => fragment.text.startsWith('[pressed'))).toBe(false);
  });

  it('stops talking when the caller presses a key', async () => {
    await keyOverAgent(await call(SCENARIO_AGENTS.longGreeting));
  });

  it('says the filler while a slow model thinks, then its answer', async () => {
    const { say, agentLines } = await call(
      { workflowDefinition: { greeting: 'Hello.' } },
      { openai: { firstTokenDelayMs: 500 } },
      { fillerAfterMs: 100 },
    );
    await say('What are your opening hours?');
    expect(agentLines()[1]).toMatch(/^One moment, please\. \S/);
  });

  it('ends with the apology when the model does not answer in time', async () => {
    const { session, feed, caller, agentLines } = await call(
      { workflowDefinition: { greeting: 'Hello.' } },
      { openai: { firstTokenDelayMs: 1000 } },
      { fillerAfterMs: 100, modelAnswerLimitMs: 300 },
    );
    await feed([...caller.say('Hello?'), ...caller.silence(400)]);
    await session.hangUpRequested;
    const result = await session.finish('closed');
    expect(result.failure).toMatch(/: no answer within 0\.3 s$/);
    expect(agentLines()).toEqual(['Hello.', PHRASES.en!.oneMoment, PHRASES.en!.apology]);
  });
});

describe('Deepgram live stream (the SDK client against the local Deepgram)', () => {
  async function openStream(fake: { idleTimeoutMs: number }, keepAliveAfterMs: number) {
    const deepgram = await startFakeDeepgram({ apiKey: 'key', ...fake });
    cleanups.push(deepgram.stop);
    const events: string[] = [];
    const stream = await new DeepgramSpeechToText({ apiKey: 'key', baseUrl: deepgram.url, keepAliveAfterMs }).open(
      { language: 'en' },
      {
        speechStarted: () => {},
        transcript: () => {},
        utteranceEnd: () => {},
        reconnecting: (reason) => void events.push(`reconnecting: ${reason}`),
        failed: (error) => void events.push(`failed: ${error.message}`),
      },
    );
    cleanups.push(() => stream.close());
    return { deepgram, events };
  }

  it('keeps a stream without audio open with KeepAlive messages', async () => {
    const { deepgram, events } = await openStream({ idleTimeoutMs: 400 }, 100);
    await sleep(1000);
    expect(events).toEqual([]);
    expect(deepgram.keepAlives()).toBeGreaterThanOrEqual(3);
    expect(deepgram.connections).toHaveLength(1);
  });

  it.each([0, 1, 70, 80, 90, 159])(
    'hears words wherever the chunks of audio begin (speech starting %i samples into a frame, as from a browser microphone)',
    async (offset) => {
      const speech = synthesizeSpeech('What are your hours?');
      expect(await heardIn(Int16Array.from([...new Int16Array(offset), ...speech]))).toEqual(['What are your hours?']);
    },
  );

  /** A stream of the SDK client on `deepgram`, the final words it hears kept. */
  async function listening(deepgram: FakeDeepgram) {
    const heard: string[] = [];
    const stream = await new DeepgramSpeechToText({ apiKey: 'key', baseUrl: deepgram.url }).open(
      { language: 'en' },
      {
        speechStarted: () => {},
        transcript: (result) => void (result.isFinal && result.text && heard.push(result.text)),
        utteranceEnd: () => {},
        failed: () => {},
      },
    );
    return { stream, heard };
  }

  /** The words heard in `audio`, sent in an audio worklet's 128-sample chunks, then a pause. */
  async function heardIn(audio: Int16Array): Promise<string[]> {
    const deepgram = await startFakeDeepgram({ apiKey: 'key' });
    cleanups.push(deepgram.stop);
    const { stream, heard } = await listening(deepgram);
    cleanups.push(() => stream.close());
    const bytes = encodeMulaw(Int16Array.from([...new Int16Array(800), ...audio, ...new Int16Array(8000)]));
    for (let start = 0; start < bytes.length; start += 128) stream.send(bytes.subarray(start, start + 128));
    await vi.waitFor(() => expect(heard).not.toEqual([]));
    return heard;
  }

  // A starved Chromium's microphone (CI's four workers on two cores) repeats or drops a few
  // milliseconds of its audio now and then; the console's talk test once heard "hours??".
  it.each([
    ['repeats the last 100 samples of the last symbol', 27, 'repeat', 100],
    ['repeats the last 130 samples of a symbol mid-word', 24, 'repeat', 130],
    ['repeats the last 60 samples of a symbol mid-word', 12, 'repeat', 60],
    ['drops the last 30 samples of a symbol mid-word', 25, 'drop', 30],
  ] as const)('hears each word once when the audio glitches: it %s', async (_glitch, symbol, kind, samples) => {
    const speech = synthesizeSpeech('What are your opening hours?');
    const end = (symbol + 1) * 160;
    const glitched =
      kind === 'repeat'
        ? [...speech.subarray(0, end), ...speech.subarray(end - samples, end), ...speech.subarray(end)]
        : [...speech.subarray(0, end - samples), ...speech.subarray(end)];
    expect(await heardIn(Int16Array.from(glitched))).toEqual(['What are your opening hours?']);
  });

  it("sends the caller's 20 ms frames in 40 ms chunks, and what is held once the audio stops", async () => {
    const deepgram = await startFakeDeepgram({ apiKey: 'key' });
    cleanups.push(deepgram.stop);
    const { stream, heard } = await listening(deepgram);
    cleanups.push(() => stream.close());
    const audio = encodeMulaw(synthesizeSpeech('Hello there.'));
    // The speech, then an odd number of silent frames: the last one is held, then sent alone.
    const bytes = Buffer.concat([audio, Buffer.alloc(160 * (49 + ((audio.length / 160) % 2)), 0xff)]);
    const frameCount = bytes.length / 160;
    expect(frameCount % 2).toBe(1);
    for (let start = 0; start < bytes.length; start += 160) stream.send(bytes.subarray(start, start + 160));
    await vi.waitFor(() =>
      expect(deepgram.audioReceived()).toEqual({ messages: (frameCount + 1) / 2, bytes: bytes.length }),
    );
    await vi.waitFor(() => expect(heard).toEqual(['Hello there.']));
  });

  it('closing, hands over the final result of words no pause had ended before it resolves', async () => {
    const deepgram = await startFakeDeepgram({ apiKey: 'key' });
    cleanups.push(deepgram.stop);
    const { stream, heard } = await listening(deepgram);
    // Words and no pause after them: nothing ends them but the stream's end.
    stream.send(encodeMulaw(synthesizeSpeech('Please leave a message')));
    await stream.close();
    expect(heard).toEqual(['Please leave a message']);
    await vi.waitFor(() => expect(deepgram.openStreams()).toBe(0));
  });

  it('without them, Deepgram closes the idle stream (NET-0001) and the client opens it again', async () => {
    const { deepgram, events } = await openStream({ idleTimeoutMs: 300 }, 60_000);
    await vi.waitFor(() => expect(deepgram.connections).toHaveLength(2));
    expect(events[0]).toMatch(
      /^reconnecting: live stream closed \(1011 Deepgram did not receive audio data .*net0001\)$/,
    );
  });
});

describe('call plan', () => {
  it.each([
    ['a phone call', true, true],
    ['a browser or chat session (no provider call to hand on)', false, false],
  ])('offers transfer_call on %s: %s', (_name, transferable, offered) => {
    const plan = buildCallPlan(
      callInput({
        initialContext: { name: 'Sam' },
        workflowConfigurations: {
          transfer: {
            destinations: [
              {
                name: 'front_desk',
                address: '+442071230412',
                description: 'Bookings.',
                mode: 'warm',
                message: 'Calling about {{initial_context.name}}.',
              },
              { name: 'billing', address: 'sip:billing@pbx.example.com', description: 'Invoices.' },
            ],
          },
        },
        transferable,
      }),
    );
    const tool = plan.tools.find((candidate) => candidate.name === 'transfer_call');
    expect(Boolean(tool)).toBe(offered);
    if (!offered) return expect(plan.transfer).toBeNull();
    expect(tool!.description).toContain('- front_desk: Bookings.\n- billing: Invoices.');
    expect(tool!.parameters).toMatchObject({ properties: { destination: { enum: ['front_desk', 'billing'] } } });
    expect(plan.transfer).toEqual({
      destinations: [
        expect.objectContaining({ name: 'front_desk', mode: 'warm', message: 'Calling about Sam.' }),
        expect.objectContaining({ name: 'billing', mode: 'cold' }),
      ],
      timeoutSeconds: 30,
      continueOnFailure: false,
    });
    expect(plan.phrases).toMatchObject({
      transferring: 'Please hold while I transfer your call.',
      transferFailed: "I'm sorry, nobody could take your call right now. Please try again later. Goodbye.",
    });
  });

  it('builds the system prompt from the definition, variables, memories and disposition codes, with default voice settings', () => {
    const plan = buildCallPlan(
      callInput({
        workflowDefinition: {
          prompt: 'Remind {{initial_context.name}}.',
          steps: ['Ask for the date', { say: 'Confirm' }],
          objections: [{ objection: 'Too busy', answer: 'It takes a minute' }],
          closing: 'Bye now.',
        },
        templateContextVariables: { clinic: 'Smile', name: 'patient' },
        initialContext: { name: 'Sam' },
        memories: [
          {
            id: 'mem_1',
            workflow_id: 1,
            content: 'Prefers mornings',
            topic: 'habits',
            due_at: null,
            done: false,
            contact: null,
            created_at: '',
            updated_at: '',
          },
          {
            id: 'mem_2',
            workflow_id: 1,
            content: 'Old task',
            topic: '',
            due_at: null,
            done: true,
            contact: null,
            created_at: '',
            updated_at: '',
          },
        ],
      }),
    );
    expect(plan.systemPrompt).toContain('Remind Sam.');
    expect(plan.systemPrompt).toContain('1. Ask for the date\n2. Confirm');
    expect(plan.systemPrompt).toContain('- "Too busy": It takes a minute');
    expect(plan.systemPrompt).toContain('- clinic: Smile\n- name: Sam');
    expect(plan.systemPrompt).toContain('- [habits] Prefers mornings');
    expect(plan.systemPrompt).not.toContain('Old task');
    expect(plan.systemPrompt).toContain('- confirmed: Visit confirmed');
    expect(plan.systemPrompt).toContain('say "Bye now." and call end_call');
    expect(plan.settings).toEqual({
      language: 'en',
      voice: undefined,
      model: undefined,
      temperature: 0.4,
      firstMessage: undefined,
      maxCallMs: 600_000,
      silenceTimeoutMs: 8000,
      chatIdleTimeoutMs: 300_000,
      bargeInMinWords: 1,
      turnTaking: { endOfTurn: 'pause', eager: false, backchannels: BACKCHANNELS.en, interruptible: true },
      engine: 'cascade',
      keypad: { collectDigits: null, endKey: '#', timeoutMs: 2000, sendDigits: false },
    });
    expect(plan.phrases).toEqual({ ...PHRASES.en, closing: 'Bye now.' });
    expect(plan.tools.find((tool) => tool.name === 'set_call_disposition')!.parameters).toMatchObject({
      properties: { code: { enum: ['confirmed', 'declined'] } },
    });
  });

  it.each([
    ['a flat definition', { prompt: 'Book visits.' }],
    [
      'a conversation flow (its steps read the call context)',
      {
        nodes: [
          { id: 'start', type: 'startCall', name: 'Hello', prompt: 'Greet.' },
          { id: 'end', type: 'endCall', name: 'Bye' },
        ],
        edges: [{ source: 'start', target: 'end', condition: 'The caller says "bye"' }],
      },
    ],
  ])('inlines the knowledge box into the system prompt of %s, bounded', (_name, definition) => {
    const knowledge = `Parking is free behind the clinic. ${'x'.repeat(MAX_KNOWLEDGE_TEXT_CHARS)}`;
    const plan = buildCallPlan(callInput({ workflowDefinition: { ...definition, knowledge } }));
    const section = plan.callContext.find((part) => part.startsWith('What you know'));
    expect(section).toBe(
      `What you know (answer from it when it helps):\n${knowledge.slice(0, MAX_KNOWLEDGE_TEXT_CHARS)}`,
    );
    expect(plan.flow !== null).toBe('nodes' in definition);
    if (!plan.flow) expect(plan.systemPrompt).toContain('Parking is free behind the clinic.');
  });

  it.each([
    [
      'a campaign call with a goal',
      'Confirm the visit',
      '- campaign_goal: Confirm the visit',
      'Goal: Confirm the visit.',
    ],
    ['a call without one', null, undefined, 'Goal: .'],
  ])('gives the agent the campaign goal on %s', (_name, campaignGoal, listed, step) => {
    const plan = buildCallPlan(
      callInput({
        workflowDefinition: { steps: ['Goal: {{initial_context.campaign_goal}}.'] },
        initialContext: { name: 'Sam' },
        campaignGoal,
      }),
    );
    expect(plan.systemPrompt).toContain(`1. ${step}`);
    if (listed) expect(plan.systemPrompt).toContain(`- name: Sam\n${listed}`);
    else expect(plan.systemPrompt).not.toContain('campaign_goal');
  });

  it.each([
    ['en', {}, {}, PHRASES.en!],
    ['pl-PL', {}, {}, PHRASES.pl!],
    ['de', {}, {}, PHRASES.de!],
    ['xx', {}, {}, PHRASES.en!],
    [
      'fr',
      { one_moment: 'Je regarde, {{initial_context.name}}.' },
      { silence_prompt: 'Allô ?', closing: 'À bientôt.' },
      { ...PHRASES.fr!, oneMoment: 'Je regarde, Sam.', silencePrompt: 'Allô ?', closing: 'À bientôt.' },
    ],
  ])(
    'speaks the fixed phrases in the language %s, with the agent overrides %j %j',
    (language, phrases, definition, expected) => {
      const plan = buildCallPlan(
        callInput({
          workflowConfigurations: { language, phrases },
          workflowDefinition: definition,
          initialContext: { name: 'Sam' },
        }),
      );
      expect(plan.phrases).toEqual(expected);
      expect(plan.systemPrompt).toContain(`say "${expected.closing}" and call end_call`);
    },
  );
});

describe('the platform providers (keys read from the VoiceProviders secret when a call needs them)', () => {
  const settings = { LLM_API_URL: 'https://api.openai.com/v1', LLM_MODEL: 'gpt-4o-mini' };
  const noKeys = async () => {
    throw new Error('no key read at start');
  };

  it('start with no key at all (the first deploy), refusing only settings fixed at deploy, named', () => {
    expect(() => platformProviders(settings, noKeys)).not.toThrow();
    expect(() => platformProviders({}, noKeys)).toThrow(/LLM_API_URL and LLM_MODEL must be set/);
    expect(() => platformProviders({ ...settings, TTS_PROVIDER: 'scripted' }, noKeys)).toThrow(
      /TTS_PROVIDER must be one of elevenlabs, openai, not 'scripted'/,
    );
  });

  it('read each provider key when it is needed: OpenAI speech uses the model key, and a rotated key makes a new client', async () => {
    const asked: string[][] = [];
    let key = 'dg-1';
    const platform = platformProviders({ ...settings, TTS_PROVIDER: 'openai' }, async (names) => {
      asked.push([...names]);
      return Object.fromEntries(names.map((name) => [name, name === 'deepgramApiKey' ? key : 'k'])) as never;
    });
    const first = await platform.stt();
    expect(await platform.stt()).toBe(first);
    key = 'dg-2';
    expect(await platform.stt()).not.toBe(first);
    expect((await platform.tts()).name).toBe('OpenAI speech');
    expect(asked).toEqual([['deepgramApiKey'], ['deepgramApiKey'], ['deepgramApiKey'], ['llmApiKey']]);
  });
});
