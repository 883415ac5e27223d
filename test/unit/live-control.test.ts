import { describe, expect, it } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import type { Brain } from '../../media/src/call/brain.ts';
import type { Handoff } from '../../media/src/call/handoff.ts';
import { CallTexts } from '../../media/src/call/call-texts.ts';
import { applyCommand, CommandWords, type ControlTarget } from '../../media/src/call/live-control.ts';
import { LiveTap, type LiveCommand, type LiveEvent } from '../../media/src/call/live-tap.ts';
import type { Speaker } from '../../media/src/call/reply.ts';
import { controlLogMessage } from '../../media/src/live-call-server.ts';
import { callInput } from '../support/voice.ts';

/** A live call's parts as a command sees them: what the command does to them, in order, out. */
function target({
  transferable = true,
  live = true,
  callerTurnUnderWay = false,
  answerInProgress = Promise.resolve(),
} = {}) {
  const did: string[] = [];
  let answersBegun = 0;
  const plan = buildCallPlan(
    callInput({
      transferable,
      workflowConfigurations: {
        transfer: { destinations: [{ name: 'front_desk', address: '+48221234567', description: 'Desk' }] },
      },
    }),
  );
  const speaker = {
    idle: async () => {
      did.push('waits for the answer in progress');
      await answerInProgress;
    },
    say: (text: string, hangUp = false) => void did.push(`says "${text}"${hangUp ? ', then hangs up' : ''}`),
  } as unknown as Speaker;
  const handoff = {
    destination: (name: unknown) => plan.transfer?.destinations.find((item) => item.name === name),
    prepare: async (destination: { name: string }, by: string) =>
      void did.push(`transfer to ${destination.name} by ${by}`),
  } as unknown as Handoff;
  const brain = {
    addNote: (content: string) => void did.push(`note "${content}"`),
    hearCaller: (text: string) => void did.push(`hears the caller "${text}"`),
  } as unknown as Brain;
  const runLogs: string[] = [];
  const call = {
    plan,
    providers: {} as never,
    organizationId: 1,
    runLog: (_level: string, message: string) => void runLogs.push(message),
  };
  const control: ControlTarget = {
    call,
    texts: new CallTexts(call, {
      gathered: {},
      transcriptEvent: (text, role = 'assistant') => void did.push(`transcript (${role}) ${text}`),
    }),
    brain,
    handoff,
    speaker,
    words: new CommandWords((error) => void did.push(`fails: ${String(error)}`)),
    live: () => live,
    ended: () => !live,
    closing: () => void did.push('closing'),
    answer: () => {
      answersBegun += 1;
      did.push('answers');
    },
    answersBegun: () => answersBegun,
    callerTurnUnderWay: () => callerTurnUnderWay,
    heard: () => void did.push('the caller is there'),
    goodbye: (text) => void did.push(`goodbye "${text}"`),
    endNow: () => void did.push('ends now'),
  };
  /** The caller's next turn ends, and the agent answers it. */
  const callerTurnEnds = () => {
    answersBegun += 1;
    did.push("answers the caller's turn");
  };
  return { control, did, runLogs, callerTurnEnds };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('control of a live call', () => {
  it.each<{ command: LiveCommand; did: string[]; log: string }>([
    {
      command: { type: 'say', text: 'Hello from a supervisor.' },
      // Its words said, the next command's words may start (the second wait).
      did: ['waits for the answer in progress', 'says "Hello from a supervisor."', 'waits for the answer in progress'],
      log: 'Said through the control API: Hello from a supervisor.',
    },
    {
      command: { type: 'say', text: 'Bye.', end_call: true },
      did: [
        'closing',
        'waits for the answer in progress',
        'says "Bye.", then hangs up',
        'waits for the answer in progress',
      ],
      log: 'Said through the control API: Bye.',
    },
    {
      command: { type: 'add_message', content: 'Offer 10%.' },
      did: ['note "Offer 10%."'],
      log: 'Message added through the control API: Offer 10%.',
    },
    {
      command: { type: 'add_message', content: 'Offer 10%.', respond: true },
      did: ['note "Offer 10%."', 'waits for the answer in progress', 'answers'],
      log: 'Message added through the control API: Offer 10%.',
    },
    {
      command: { type: 'transfer', destination: 'front_desk' },
      did: [
        'closing',
        'waits for the answer in progress',
        'transfer to front_desk by the control API',
        'says "Please hold while I transfer your call.", then hangs up',
        'waits for the answer in progress',
      ],
      log: 'Transfer to front_desk through the control API',
    },
    { command: { type: 'end' }, did: ['ends now'], log: 'Ended through the control API' },
    { command: { type: 'end', say: 'Goodbye.' }, did: ['goodbye "Goodbye."'], log: 'Ended through the control API' },
    {
      // The platform's news of a text from the caller: a turn of theirs, answered once the agent has finished.
      command: { type: 'caller_text', sms_id: 'sms_r1', from: '+48601234561', body: 'anna@example.com' },
      did: [
        'transcript (user) [text message from +48601234561: anna@example.com]',
        'hears the caller "(The caller texted: anna@example.com)"',
        'the caller is there',
        'waits for the answer in progress',
        'answers',
      ],
      log: 'Text message sms_r1 passed to the agent',
    },
  ])('$command', async ({ command, did: expected, log }) => {
    const { control, did, runLogs } = target();
    expect(await applyCommand(command, control)).toBeNull();
    await settle();
    expect(did).toEqual(expected);
    // The command's line is the media service's, written before it is applied (live-call-server.ts):
    // applying it adds none.
    expect(runLogs).toEqual([]);
    expect(controlLogMessage(command)).toBe(log);
  });

  it('refuses a transfer to a destination the call does not have', async () => {
    expect(await applyCommand({ type: 'transfer', destination: 'nobody' }, target().control)).toBe(
      'no transfer destination named nobody',
    );
    expect(
      await applyCommand({ type: 'transfer', destination: 'front_desk' }, target({ transferable: false }).control),
    ).toBe('this call has no transfer destinations (or is not a phone call)');
  });

  it("an end with a goodbye right after a say has its goodbye follow the say's words, the call closing at once", async () => {
    const { control, did } = target();
    await applyCommand({ type: 'say', text: 'One moment.' }, control);
    await applyCommand({ type: 'end', say: 'Goodbye.' }, control);
    await settle();
    expect(did).toEqual([
      'waits for the answer in progress',
      'closing',
      'says "One moment."',
      'waits for the answer in progress',
      'says "Goodbye.", then hangs up',
    ]);
  });

  const text: LiveCommand = { type: 'caller_text', sms_id: 'sms_r1', from: '+48601234561', body: 'anna@example.com' };

  it("a caller's text is not answered on its own while the caller's turn is under way (its end answers both)", async () => {
    const { control, did } = target({ callerTurnUnderWay: true });
    await applyCommand(text, control);
    await settle();
    expect(did.at(-1)).toBe('waits for the answer in progress');
    expect(did).not.toContain('answers');
  });

  it("a caller's text is not answered twice when the caller's next turn was answered first", async () => {
    let answerOver = () => {};
    const answerInProgress = new Promise<void>((resolve) => (answerOver = resolve));
    const { control, did, callerTurnEnds } = target({ answerInProgress });
    await applyCommand(text, control);
    callerTurnEnds(); // before the answer in progress is over
    answerOver();
    await settle();
    expect(did.slice(-2)).toEqual(['waits for the answer in progress', "answers the caller's turn"]);
    expect(did).not.toContain('answers');
  });

  it('an answer asked for is dropped if the call ends meanwhile', async () => {
    const { control, did } = target({ live: false });
    await applyCommand({ type: 'add_message', content: 'x', respond: true }, control);
    await settle();
    expect(did).toEqual(['note "x"', 'waits for the answer in progress']);
  });
});

describe('the live tap', () => {
  it("gives the session's client its events, and every listener all it hears, until the end", () => {
    const sent: LiveEvent[] = [];
    const tap = new LiveTap({ sessionEvents: true, send: (event) => void sent.push(event), log: () => {} }, () => null);
    const heard: LiveEvent[] = [];
    expect(tap.listening).toBe(false);
    const stop = tap.observe((event) => void heard.push(event));
    tap.observe(() => {
      throw new Error('a broken listener does not stop the others');
    });
    tap.sessionEvent({ event: 'transcript', text: 'Hi' });
    tap.notify({ event: 'media', track: 'inbound' });
    tap.end({ event: 'end' });
    tap.notify({ event: 'media', track: 'inbound' });
    stop();
    expect(sent).toEqual([{ event: 'transcript', text: 'Hi' }]);
    expect(heard).toEqual([
      { event: 'transcript', text: 'Hi' },
      { event: 'media', track: 'inbound' },
      { event: 'end' },
    ]);
    expect(tap.listening).toBe(false);
  });
});
