import { describe, expect, it } from 'vitest';
import {
  endingOutcome,
  machineAction,
  settleOutcome,
  type OutcomeEvent,
} from '../../shared/domain/answering-machine.ts';

/** Every order of `events`. */
function orderings<T>(events: readonly T[]): T[][] {
  if (events.length <= 1) return [[...events]];
  return events.flatMap((event, i) =>
    orderings([...events.slice(0, i), ...events.slice(i + 1)]).map((rest) => [event, ...rest]),
  );
}

const machine: OutcomeEvent = { verdict: 'machine' };
const human: OutcomeEvent = { verdict: 'human' };
const unknown: OutcomeEvent = { verdict: 'unknown' };
const completed: OutcomeEvent = { ending: 'completed' };
const failed: OutcomeEvent = { ending: 'failed' };
const watchdog: OutcomeEvent = { ending: 'failed' };

describe('answering-machine verdict against the call ending', () => {
  it.each([
    ['completed', 'machine', 'voicemail'],
    ['failed', 'machine', 'voicemail'],
    ['completed', 'human', 'completed'],
    ['completed', 'unknown', 'completed'],
    ['completed', null, 'completed'],
    ['failed', 'human', 'failed'],
    ['busy', 'machine', 'busy'],
    ['no_answer', 'machine', 'no_answer'],
    ['voicemail', undefined, 'voicemail'],
  ] as const)('an ending %s with the verdict %s is %s', (reported, verdict, expected) => {
    expect(endingOutcome(reported, verdict)).toBe(expected);
  });

  // Each case: the events, and the outcome of each order they can come in (by the index of the
  // first ending: a verdict applied before it counts, one after it is too late).
  it.each([
    {
      name: 'machine, then the stream closes (hang-up or message left)',
      events: [machine, completed],
      expected: (order: OutcomeEvent[]) => (order[0] === machine ? 'voicemail' : 'completed'),
    },
    {
      name: 'machine verdict twice (Telnyx greeting end, retried webhook) and a failure',
      events: [machine, machine, failed],
      expected: (order: OutcomeEvent[]) => (order[0] === machine ? 'voicemail' : 'failed'),
    },
    {
      name: 'a person',
      events: [human, completed],
      expected: () => 'completed',
    },
    {
      name: 'unknown',
      events: [unknown, completed],
      expected: () => 'completed',
    },
    {
      name: 'a person first, a contradicting machine verdict later',
      events: [human, machine, completed],
      expected: (order: OutcomeEvent[]) =>
        order.indexOf(completed) === 0
          ? 'completed'
          : order.indexOf(human) < order.indexOf(machine) || order.indexOf(machine) > order.indexOf(completed)
            ? 'completed'
            : 'voicemail',
    },
    {
      name: 'two endings (media service and watchdog) around a machine verdict',
      events: [machine, completed, watchdog],
      expected: (order: OutcomeEvent[]) => {
        const firstEnding = order.findIndex((event) => 'ending' in event);
        const ending = (order[firstEnding] as { ending: string }).ending;
        return order.indexOf(machine) < firstEnding ? 'voicemail' : ending;
      },
    },
  ])('$name: exactly one outcome for every order', ({ events, expected }) => {
    for (const order of orderings(events)) {
      expect(settleOutcome(order), JSON.stringify(order)).toBe(expected(order));
      // Events after the ending never change it.
      const endedAt = order.findIndex((event) => 'ending' in event);
      expect(settleOutcome(order.slice(0, endedAt + 1))).toBe(settleOutcome(order));
    }
  });

  it('is undefined until the call ends', () => {
    expect(settleOutcome([machine])).toBeUndefined();
    expect(settleOutcome([])).toBeUndefined();
  });

  it.each([
    ['human', 'unknown', 'Hi', 'none'],
    ['unknown', 'ended', 'Hi', 'none'],
    ['machine', 'pending', null, 'hang_up'],
    ['machine', 'ended', '', 'hang_up'],
    ['machine', 'pending', 'Hi', 'wait_for_greeting_end'],
    ['machine', 'ended', 'Hi', 'leave_message'],
    ['machine', 'unknown', 'Hi', 'hang_up'],
  ] as const)('a %s verdict (greeting %s, message %j) → %s', (verdict, greeting, message, action) => {
    expect(machineAction(verdict, greeting, message)).toBe(action);
  });
});
