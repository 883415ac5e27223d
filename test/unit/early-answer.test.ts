import { describe, expect, it } from 'vitest';
import type { Answer, Brain } from '../../media/src/call/brain.ts';
import type { CallerTurn } from '../../media/src/call/caller-turns.ts';
import { EarlyAnswers } from '../../media/src/call/early-answer.ts';

/**
 * The early answer (Flux's eager end of turn) alone: caller turns in (eager, then ended or
 * resumed), what the caller hears and what the brain, the speaker and the turn's latency are told,
 * out. The whole loop with Flux's wire is test/unit/flux-turns.test.ts.
 */
type Step = { eager: string } | { ended: string | null } | { resumed: true };

const turn = (text: string, backchannel = false): CallerTurn => ({
  text,
  startMs: 1000,
  endMs: 2000,
  finalMs: 2100,
  backchannel,
});

/** A brain that answers every turn "Re: <words>." then its final words, and a speaker that records. */
async function run(steps: Step[], options: { eager?: boolean; retracts?: boolean } = {}) {
  const events: string[] = [];
  const pending: Promise<void>[] = [];
  const brain: Brain = {
    hearCaller: (text) => events.push(`brain hears "${text}"`),
    ...(options.retracts === false ? {} : { retractCaller: (text: string) => events.push(`brain forgets "${text}"`) }),
    addNote: () => {},
    restore: () => {},
    answer: async (answer, userText) => {
      answer.say(`Re: ${userText}.`);
      answer.finalWords(`Re: ${userText}.`);
    },
    heardAgent: (content) => ({ content }),
    summary: async () => '',
    interruptible: () => true,
    flowPath: () => null,
    usage: () => null,
  };
  const early = new EarlyAnswers({
    speaker: {
      start: (produce) => {
        const controller = new AbortController();
        const answer: Answer = {
          signal: controller.signal,
          saidAnything: false,
          hangingUp: false,
          say: (text) => events.push(`caller hears "${text}"`),
          finalWords: (text) => events.push(`history gets "${text}"`),
          hangUp: () => events.push('hang up'),
        };
        pending.push(produce(answer).then(() => void events.push('reply closed')));
      },
      abort: () => events.push('reply aborted'),
    },
    latency: {
      turn: (endMs, finalMs) => void events.push(`latency turn ${endMs}/${finalMs}`),
      retract: () => void events.push('latency retracted'),
    },
    log: () => events.push('logged'),
  });
  const answered: boolean[] = [];
  for (const step of steps) {
    if ('eager' in step) early.begin(turn(step.eager), brain, options.eager ?? true);
    else if ('ended' in step) answered.push(early.end(step.ended === null ? null : turn(step.ended), brain));
    else early.drop(brain);
    // Whatever the answer can do before the turn settles happens now.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Every answer's reply closes once its turn has settled (confirmed or thrown away).
  await Promise.all(pending);
  return { events, answered };
}

/** An early answer to "Hello" thrown away unheard: the brain and the latency take the turn back. */
const THROWN_AWAY = [
  'latency turn 2000/2100',
  'brain hears "Hello"',
  'reply aborted',
  'brain forgets "Hello"',
  'latency retracted',
  'logged',
  'reply closed',
];

describe('an early answer (begun at an eager end of turn)', () => {
  it.each<{
    name: string;
    steps: Step[];
    options?: { eager?: boolean; retracts?: boolean };
    events: string[];
    answered: boolean[];
  }>([
    {
      name: 'is written at once but said only when the turn ends with the same words',
      steps: [{ eager: 'Hello' }, { ended: 'Hello' }],
      events: [
        'latency turn 2000/2100',
        'brain hears "Hello"',
        'caller hears "Re: Hello."',
        'history gets "Re: Hello."',
        'reply closed',
      ],
      answered: [true],
    },
    {
      name: 'is thrown away unheard when the caller goes on, the brain and the latency taking the turn back',
      steps: [{ eager: 'Hello' }, { resumed: true }],
      events: THROWN_AWAY,
      answered: [],
    },
    {
      name: 'is thrown away when the turn ends with other words (the end then answers them itself)',
      steps: [{ eager: 'Hello' }, { ended: 'Hello there' }],
      events: THROWN_AWAY,
      answered: [false],
    },
    {
      name: 'is thrown away when the turn came to nothing',
      steps: [{ eager: 'Hello' }, { ended: null }],
      events: THROWN_AWAY,
      answered: [false],
    },
    {
      name: 'a second eager end replaces the first, which is never heard',
      steps: [{ eager: 'Hi' }, { eager: 'Hi, I need' }, { ended: 'Hi, I need' }],
      events: [
        'latency turn 2000/2100',
        'brain hears "Hi"',
        'reply aborted',
        'brain forgets "Hi"',
        'latency retracted',
        'logged',
        'latency turn 2000/2100',
        'brain hears "Hi, I need"',
        'reply closed',
        'caller hears "Re: Hi, I need."',
        'history gets "Re: Hi, I need."',
        'reply closed',
      ],
      answered: [true],
    },
    {
      name: 'is not begun for an agent that did not ask for early answers',
      steps: [{ eager: 'Hello' }, { ended: 'Hello' }],
      options: { eager: false },
      events: [],
      answered: [false],
    },
    {
      name: 'is not begun for a brain that cannot take a turn back (a flow)',
      steps: [{ eager: 'Hello' }, { ended: 'Hello' }],
      options: { retracts: false },
      events: [],
      answered: [false],
    },
  ])('$name', async ({ steps, options, events, answered }) => {
    expect(await run(steps, options)).toEqual({ events, answered });
  });

  it('is not begun for backchannels ("mhm" while the agent talks)', async () => {
    const events: string[] = [];
    const early = new EarlyAnswers({
      speaker: { start: () => events.push('started'), abort: () => events.push('aborted') },
      latency: { turn: () => events.push('turn'), retract: () => events.push('retracted') },
      log: () => events.push('logged'),
    });
    const brain = { hearCaller: () => events.push('heard'), retractCaller: () => {} } as unknown as Brain;
    early.begin(turn('mhm', true), brain, true);
    expect(early.end(turn('mhm', true), brain)).toBe(false);
    expect(events).toEqual([]);
  });
});
