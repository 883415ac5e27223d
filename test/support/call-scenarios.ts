import { expect, vi } from 'vitest';
import type { CallInput } from '../../media/src/agent/call-plan.ts';
import { PHRASES } from '../../media/src/agent/phrases.ts';
import { KeyDetector } from '../../media/src/audio/dtmf.ts';
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { frames } from '../../media/src/audio/tones.ts';
import { CallPipeline } from '../../media/src/call/call-pipeline.ts';
import type { CallPipelineOptions } from '../../media/src/call/call-types.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../../media/src/streams/simulated-caller.ts';

/**
 * What a voice call's features do whatever the engine: the same scenario and assertions for the
 * cascade (test/unit/voice-agent.test.ts) and the realtime engine (test/unit/realtime-features.test.ts),
 * each on its own call set-up (the pipeline fed a SimulatedCaller's frames, on the media clock).
 * What differs by engine (what the model was told, the tools it was offered) each test checks itself.
 */
export interface ScenarioCall {
  session: CallPipeline;
  caller: SimulatedCaller;
  sent: { event: string; media?: { payload: string } }[];
  feed(messages: MediaStreamMessage[]): Promise<void>;
  /** The caller says `text`; resolves once the agent has answered. */
  say(text: string): Promise<void>;
  /** Silence until what the agent sent has played, plus `extraMs`. */
  listen(extraMs?: number): Promise<void>;
  agentLines(): string[];
}

/** A Media Streams message the pipeline sent (`media`, `mark`, `clear`). */
export type SentFrame = {
  event: string;
  streamSid?: string;
  media?: { payload: string; track?: string };
  mark?: { name: string };
};

/**
 * A call between a SimulatedCaller (Media Streams frames) and a CallPipeline on `prepare`'s call,
 * started and greeted; the pipeline's clock follows the media timestamps, as in a real call.
 * `endOfTurnMs`: the caller's silence after their words that ends their turn for the engine.
 */
export async function simulatedCall(options: {
  base: number;
  prepare: CallPipelineOptions['prepare'];
  timing?: CallPipelineOptions['timing'];
  endOfTurnMs: number;
  streamSid: string;
  cleanups: (() => Promise<void>)[];
}) {
  let now = options.base;
  const sent: SentFrame[] = [];
  const session = new CallPipeline({
    prepare: options.prepare,
    send: (message) => sent.push(message as SentFrame),
    clock: () => now,
    timing: options.timing,
  });
  options.cleanups.push(async () => (await session.finish('closed')).recording?.dispose());
  const caller = new SimulatedCaller({ streamSid: options.streamSid, runRef: '1.2.3' });
  const feed = async (messages: MediaStreamMessage[]) => {
    for (const message of messages) {
      const media = message.media as { timestamp?: string } | undefined;
      if (media?.timestamp !== undefined) now = options.base + Number(media.timestamp);
      await session.handle(message);
    }
  };
  const lines = () => session.fragments.map(({ role, text }) => `${role}: ${text}`);
  const agentLines = () =>
    session.fragments.filter((fragment) => fragment.role === 'assistant').map((fragment) => fragment.text);
  /** The caller says `text`, then is silent past the end of their turn; resolves once the agent has answered. */
  const say = async (text: string) => {
    const answers = agentLines().length;
    await feed([...caller.say(text), ...caller.silence(options.endOfTurnMs)]);
    await vi.waitFor(() => expect(agentLines().length).toBeGreaterThan(answers), { timeout: 5000 });
    await session.idle();
  };
  /** Silence until what the agent sent has played, plus `extraMs`. */
  const listen = async (extraMs = 200) =>
    feed(caller.silence(Math.max(0, session.playbackEndMs - caller.elapsedMs) + extraMs));
  await feed(caller.start());
  await session.opened;
  await session.idle();
  return { session, caller, sent, feed, say, listen, lines, agentLines };
}

/** The agents of the scenarios below. */
export const SCENARIO_AGENTS = {
  hello: { workflowDefinition: { greeting: 'Hello.' } },
  silence: { workflowDefinition: { greeting: 'Hello.' }, workflowConfigurations: { silence_timeout_seconds: 2 } },
  timeLimit: {
    workflowDefinition: { greeting: 'Hello.' },
    workflowConfigurations: { max_call_seconds: 10, silence_timeout_seconds: 60 },
  },
  longGreeting: {
    workflowConfigurations: {
      first_message: 'Good morning, I am calling about your visit tomorrow at nine, and I would like to confirm it.',
    },
  },
  keypad: (keypad: Record<string, unknown>): Partial<CallInput> => ({
    workflowDefinition: { greeting: 'Hello.', steps: ['Thank you, I have your number.'] },
    workflowConfigurations: { keypad },
  }),
  sendsDigits: {
    workflowDefinition: { greeting: 'Hello.' },
    workflowConfigurations: { keypad: { send_digits: true } },
  },
} satisfies Record<string, Partial<CallInput> | ((...args: never[]) => Partial<CallInput>)>;

/** Keys pressed, and the entry they make by the agent's keypad setting. */
export const KEYPAD_ENTRIES: [string, Record<string, unknown>, string[], string][] = [
  ['the end key', {}, ['1', '2', '3', '4', '#'], '1234'],
  ['a fixed length', { collect_digits: 3 }, ['5', '6', '7'], '567'],
  ['a pause', { end_key: null, timeout_seconds: 1 }, ['9', '#'], '9#'],
];

/** SCENARIO_AGENTS.silence: asked whether they are there after a silence, then goodbye and the hang-up. */
export async function silentCaller({ session, feed, caller, agentLines, listen }: ScenarioCall): Promise<void> {
  await feed(caller.silence(2300));
  await vi.waitFor(() => expect(agentLines()).toEqual(['Hello.', 'Are you still there?']));
  await session.idle();
  await listen(2100);
  await vi.waitFor(() => expect(agentLines()).toEqual(['Hello.', 'Are you still there?', PHRASES.en!.silenceGoodbye]));
  await session.hangUpRequested;
  expect(session.gathered).toEqual({});
}

/** SCENARIO_AGENTS.timeLimit: the call ends at its longest, with the goodbye. */
export async function callAtTimeLimit({ session, feed, caller, agentLines }: ScenarioCall): Promise<void> {
  await feed(caller.silence(10_100));
  await session.hangUpRequested;
  expect(agentLines()).toEqual(['Hello.', PHRASES.en!.timeLimitGoodbye]);
}

/** SCENARIO_AGENTS.longGreeting: a key pressed stops the agent talking. */
export async function keyOverAgent({ caller, sent, feed }: ScenarioCall): Promise<void> {
  await feed(caller.silence(300));
  expect(sent.some((message) => message.event === 'clear')).toBe(false);
  await feed([caller.dtmf('0')]);
  expect(sent.some((message) => message.event === 'clear')).toBe(true);
}

/** SCENARIO_AGENTS.keypad: the keys make the caller's turn, `[pressed <entry>]`, which the agent answers. */
export async function keysPressed(
  { session, caller, feed, agentLines }: ScenarioCall,
  keys: string[],
  entry: string,
): Promise<void> {
  await feed(caller.silence(300)); // the greeting has played
  for (const key of keys) await feed([caller.dtmf(key), ...caller.silence(100)]);
  await feed(caller.silence(1100)); // past a pause of 1 s
  await vi.waitFor(() => expect(agentLines()).toHaveLength(2));
  await session.idle();
  expect(session.fragments.filter((fragment) => fragment.role === 'user').map((fragment) => fragment.text)).toEqual([
    `[pressed ${entry}]`,
  ]);
  expect(agentLines()[1]).toBe('Thank you, I have your number.');
}

/** SCENARIO_AGENTS.sendsDigits: a phone menu asks for 2; the agent's audio carries its tones, in its turn. */
export async function phoneMenu({ session, say, sent, agentLines }: ScenarioCall): Promise<void> {
  const before = sent.length;
  await say('For appointments press 2, for prices press 3.');
  const detector = new KeyDetector();
  const heard = sent
    .slice(before)
    .filter((message) => message.event === 'media')
    .flatMap((message) => frames(decodeMulaw(Buffer.from(message.media!.payload, 'base64'))))
    .map((frame) => detector.push(frame))
    .filter(Boolean);
  expect(heard).toEqual(['2']);
  expect(agentLines()[1]).toMatch(/^\[keys 2\]/);
  expect(session.isFinished).toBe(false);
}

/**
 * The control API's `say` then `end` with a goodbye, back to back: the supervisor's words, then the
 * goodbye, then the hang-up (the end's goodbye once cut the `say`'s words, or the `say` the goodbye,
 * and the call did not hang up). Then no command is taken: the call is ending.
 */
export async function sayThenEndWithGoodbye({ session, agentLines, listen }: ScenarioCall): Promise<void> {
  await listen();
  const said = session.control({ type: 'say', text: 'A word from a supervisor.' });
  const ended = session.control({ type: 'end', say: 'Goodbye from a supervisor.' });
  expect(await said).toBeNull();
  expect(await ended).toBeNull();
  await session.hangUpRequested;
  await session.idle();
  expect(agentLines()).toEqual(['Hello.', 'A word from a supervisor.', 'Goodbye from a supervisor.']);
  expect(await session.control({ type: 'say', text: 'Too late.' })).toBe('the call is ending');
}

/** `end` with a goodbye, then `say`: the say is refused (the call is ending), the goodbye said, the call hung up. */
export async function endWithGoodbyeThenSay({ session, agentLines, listen }: ScenarioCall): Promise<void> {
  await listen();
  const ended = session.control({ type: 'end', say: 'Goodbye from a supervisor.' });
  const said = session.control({ type: 'say', text: 'A word from a supervisor.' });
  expect(await ended).toBeNull();
  expect(await said).toBe('the call is ending');
  await session.hangUpRequested;
  await session.idle();
  expect(agentLines()).toEqual(['Hello.', 'Goodbye from a supervisor.']);
}

/** `say`, then `end` without a goodbye: the call hangs up at once, the say dropped (it was once said after the hang-up). */
export async function sayThenEndNow({ session, agentLines, listen }: ScenarioCall): Promise<void> {
  await listen();
  const said = session.control({ type: 'say', text: 'A word from a supervisor.' });
  expect(await session.control({ type: 'end' })).toBeNull();
  expect(await said).toBeNull();
  await session.hangUpRequested;
  await session.idle();
  expect(agentLines()).toEqual(['Hello.']);
}
