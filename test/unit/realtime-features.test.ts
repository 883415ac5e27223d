import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallInput } from '../../media/src/agent/call-plan.ts';
import { PHRASES } from '../../media/src/agent/phrases.ts';
import type { LiveCommand, LiveEvent } from '../../media/src/call/live-tap.ts';
import {
  callAtTimeLimit,
  KEYPAD_ENTRIES,
  keyOverAgent,
  keysPressed,
  phoneMenu,
  SCENARIO_AGENTS,
  silentCaller,
  sayThenEndWithGoodbye,
  endWithGoodbyeThenSay,
  sayThenEndNow,
} from '../support/call-scenarios.ts';
import { realtimeCall as callOfRealtime, type Cleanups } from '../support/realtime-call.ts';

/**
 * The realtime engine does what the cascade does (test/unit/voice-agent.test.ts, live-control.test.ts):
 * the caller's keys, the agent's keys, the silence and length clocks, a transfer, live listen and
 * control, and the recording, on the media clock, through the `openai` package's client against the
 * local Realtime fake. The same assertions as the cascade's, where the engines do the same.
 */
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const realtimeCall = (input: Partial<CallInput>) => callOfRealtime(cleanups, input);

/** What the model's conversation was given as a message (`conversation.item.create`), as `role: text`. */
type Received = { type: string; item?: { type: string; role?: string; content?: { text: string }[] } };
const itemsGiven = (received: Received[]) =>
  received
    .filter((event) => event.type === 'conversation.item.create' && event.item?.type === 'message')
    .map((event) => `${event.item!.role}: ${event.item!.content!.map((part) => part.text).join('')}`);

/** Out-of-band responses asked (the fixed phrases, said word for word). */
const phrasesAsked = (received: { type: string; response?: { conversation?: string; instructions?: string } }[]) =>
  received
    .filter((event) => event.type === 'response.create' && event.response?.conversation === 'none')
    .map((event) => /"(.*)"$/.exec(event.response!.instructions!)?.[1]);

const TRANSFER = {
  destinations: [{ name: 'front_desk', address: '+48221234567', description: 'A person at the front desk.' }],
};

describe("the realtime engine: the caller's keys (DTMF)", () => {
  it.each(KEYPAD_ENTRIES)('are a turn told to the model in words, ended by %s', async (_case, keypad, keys, entry) => {
    const started = await realtimeCall(SCENARIO_AGENTS.keypad(keypad));
    await keysPressed(started, keys, entry);
    // The model hears no keys: the entry is a message of the caller's in its conversation, then it answers.
    expect(itemsGiven(started.fake.received).at(-1)).toBe(
      `user: (The caller pressed these keys on the phone's keypad: ${entry})`,
    );
  });

  it('stop the agent talking, as words do', async () => {
    await keyOverAgent(await realtimeCall(SCENARIO_AGENTS.longGreeting));
  });
});

describe("the realtime engine: the agent's keys (send_digits)", () => {
  it('are DTMF tones in its audio, in its turn, when the model calls the tool', async () => {
    const started = await realtimeCall(SCENARIO_AGENTS.sendsDigits);
    await phoneMenu(started);
    expect(started.runLogs).toContain('Keys sent by the agent: 2');
    const update = started.fake.received.find((event) => event.type === 'session.update')!;
    expect((update.session as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('send_digits');
  });
});

describe('the realtime engine: the silence and length clocks', () => {
  it('asks whether the caller is still there after a silence, then says goodbye and hangs up', async () => {
    const started = await realtimeCall(SCENARIO_AGENTS.silence);
    await silentCaller(started);
    // Each said word for word by the model, in its voice.
    expect(phrasesAsked(started.fake.received)).toEqual(['Hello.', 'Are you still there?', PHRASES.en!.silenceGoodbye]);
  });

  it("does not ask whether the caller is there while they speak: the model's turn detection hears their voice", async () => {
    // 2.3 s of speech (20 ms a character) after 1 s of silence, with a silence timeout of 2 s: the
    // cascade hears words all along (interim results), the realtime model only their voice until the turn ends.
    const long =
      'I would like to move my visit from Tuesday to Thursday afternoon, or to Friday morning if there is a free slot then.';
    const { caller, feed, session, agentLines, events } = await realtimeCall({
      workflowDefinition: { greeting: 'Hello.', steps: ['Thank you, noted.'] },
      workflowConfigurations: { silence_timeout_seconds: 2 },
    });
    expect(long.length * 20).toBe(2_320);
    const silence = caller.silence(1000);
    const speech = caller.say(long);
    // Its first 500 ms: the model hears the voice begin (on its way back over the socket).
    await feed([...silence, ...speech.slice(0, 25)]);
    await vi.waitFor(() => expect(events).toContain('input_audio_buffer.speech_started'));
    // Past the silence timeout (the greeting ended at 120 ms): the agent is still listening.
    await feed(speech.slice(25, 80));
    await session.idle();
    expect(agentLines()).toEqual(['Hello.']);
    // The rest, then the end of the turn.
    await feed([...speech.slice(80), ...caller.silence(700)]);
    await vi.waitFor(() => expect(agentLines()).toHaveLength(2));
    await session.idle();
    expect(agentLines()).toEqual(['Hello.', 'Thank you, noted.']);
  });

  it('ends the call at the maximum call length', async () => {
    await callAtTimeLimit(await realtimeCall(SCENARIO_AGENTS.timeLimit));
  });
});

describe('the realtime engine: a transfer to a person (transfer_call)', () => {
  it('notes the transfer, says the handoff phrase in the model voice, then hangs up', async () => {
    const { session, say, fake, lines, runLogs } = await realtimeCall({
      workflowDefinition: { greeting: 'Hello.' },
      workflowConfigurations: { transfer: TRANSFER },
      transferable: true,
    });
    await say('Can I talk to a person, please?');
    const hangUp = await session.hangUpRequested;
    expect(hangUp).toBeDefined();
    expect(session.transferIntent).toMatchObject({ destination: { name: 'front_desk', address: '+48221234567' } });
    expect(lines()).toEqual([
      'assistant: Hello.',
      'user: Can I talk to a person, please?',
      'assistant: Please hold while I transfer your call.',
    ]);
    expect(runLogs).toContain('Transfer to front_desk asked for by the agent: Can I talk to a person, please?');
    expect(fake.received).toContainEqual(
      expect.objectContaining({
        type: 'conversation.item.create',
        item: expect.objectContaining({ type: 'function_call_output' }),
      }),
    );
  });
});

describe('the realtime engine: live control (POST …/control)', () => {
  it.each<{ command: LiveCommand; said: string | null; given?: string; hangsUp: boolean; transfer?: boolean }>([
    { command: { type: 'say', text: 'Hello from a supervisor.' }, said: 'Hello from a supervisor.', hangsUp: false },
    { command: { type: 'say', text: 'Bye.', end_call: true }, said: 'Bye.', hangsUp: true },
    {
      command: { type: 'add_message', content: 'Offer 10%.' },
      said: null,
      given: 'system: Offer 10%.',
      hangsUp: false,
    },
    {
      // The model answers the conversation so far (the caller has said nothing yet: the fake model's opening).
      command: { type: 'add_message', content: 'Offer 10%.', respond: true },
      said: 'Hello, this is Ann. How can I help you?',
      given: 'system: Offer 10%.',
      hangsUp: false,
    },
    { command: { type: 'end' }, said: null, hangsUp: true },
    { command: { type: 'end', say: 'Goodbye.' }, said: 'Goodbye.', hangsUp: true },
    {
      command: { type: 'transfer', destination: 'front_desk' },
      said: 'Please hold while I transfer your call.',
      hangsUp: true,
      transfer: true,
    },
  ])('$command', async ({ command, said, given, hangsUp, transfer }) => {
    const { session, fake, agentLines, listen } = await realtimeCall({
      workflowDefinition: { greeting: 'Hello.', steps: ['Would you like to book a visit?'] },
      workflowConfigurations: { transfer: TRANSFER },
      transferable: true,
    });
    await listen();
    expect(await session.control(command)).toBeNull();
    if (said) await vi.waitFor(() => expect(agentLines()).toHaveLength(2));
    if (hangsUp) await session.hangUpRequested;
    await session.idle();
    expect(agentLines()).toEqual(['Hello.', ...(said ? [said] : [])]);
    if (given) await vi.waitFor(() => expect(itemsGiven(fake.received)).toContain(given));
    expect(session.transferIntent?.destination.name ?? null).toBe(transfer ? 'front_desk' : null);
  });
});

describe('the realtime engine: control commands back to back', () => {
  it("says the control API's words, then its end's goodbye, then hangs up (say, then end)", async () => {
    await sayThenEndWithGoodbye(await realtimeCall(SCENARIO_AGENTS.hello));
  });

  it("refuses the control API's say once an end with a goodbye is asked", async () => {
    await endWithGoodbyeThenSay(await realtimeCall(SCENARIO_AGENTS.hello));
  });

  it("drops the control API's say when an end without a goodbye follows it at once", async () => {
    await sayThenEndNow(await realtimeCall(SCENARIO_AGENTS.hello));
  });
});

describe('the realtime engine: live listen, and the recording', () => {
  it("a listener hears both sides' audio and the model's transcripts of both; the recording mixes both where they played", async () => {
    const { session, caller, feed, say, listen } = await realtimeCall({
      workflowDefinition: { greeting: 'Hello, this is Smile.', steps: ['Would you like to book a visit?'] },
    });
    const heard: LiveEvent[] = [];
    session.observe((event) => void heard.push(event));
    await listen();
    const saidAt = caller.elapsedMs;
    await say('What time is it?');
    await listen();
    await feed([caller.stop()]);
    const result = await session.finished;
    const media = heard.filter((event) => event.event === 'media') as unknown as { track: string; payload: string }[];
    expect(new Set(media.map((event) => event.track))).toEqual(new Set(['inbound', 'outbound']));
    expect(media.every((event) => Buffer.from(event.payload, 'base64').length === 160)).toBe(true);
    expect(media.filter((event) => event.track === 'outbound')).toHaveLength('Would you like to book a visit?'.length);
    expect(
      heard.filter((event) => event.event === 'transcript').map((event) => `${event.role}: ${event.text}`),
    ).toEqual(['user: What time is it?', 'assistant: Would you like to book a visit?']);
    expect(heard.at(-1)).toMatchObject({ event: 'end' });

    // The recording: 8 kHz 16-bit, as long as the call; the caller's words where they said them, the
    // agent's answer where it played (loud 20 ms frames: the speech of tones.ts).
    const wav = await result.recording!.read();
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    expect(samples.length).toBe(caller.elapsedMs * 8);
    const loud = (fromMs: number, toMs: number) => {
      let peak = 0;
      for (let at = fromMs * 8; at < toMs * 8; at++) peak = Math.max(peak, Math.abs(samples[at]!));
      return peak > 1000;
    };
    const answer = result.fragments.find((fragment) => fragment.text === 'Would you like to book a visit?')!;
    const answerStart = Date.parse(answer.timestamp) - Date.parse(result.startedAt);
    expect([loud(saidAt, saidAt + 200), loud(answerStart, answerStart + 200)]).toEqual([true, true]);
    expect(loud(answerStart - 200, answerStart)).toBe(false);
  });
});
