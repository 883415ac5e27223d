import { describe, expect, it } from 'vitest';
import { ChatAllowance, CHAT_LIMITS, type ChatLimits } from '../../media/src/streams/chat-limits.ts';

const limits: ChatLimits = { burst: 3, messagesPerMinute: 60, maxSegmentChars: 100, maxSessionChars: 250 };

/** Each step: [ms on the fake clock, characters, or 'answer' for the agent's line] and the close code expected (null: accepted). */
type Step = [atMs: number, chars: number | 'answer', expected?: number | null];

const cases: { name: string; steps: Step[] }[] = [
  {
    name: 'a burst of the bucket size is accepted',
    steps: [
      [0, 10, null],
      [0, 10, null],
      [0, 10, null],
    ],
  },
  {
    name: 'one more at once is too many (4429)',
    steps: [
      [0, 1, null],
      [0, 1, null],
      [0, 1, null],
      [0, 1, 4429],
    ],
  },
  {
    name: 'the bucket refills at the steady pace (one a second here)',
    steps: [
      [0, 1, null],
      [0, 1, null],
      [0, 1, null],
      [999, 1, 4429],
    ],
  },
  {
    name: 'a message a second goes on for ever',
    steps: Array.from({ length: 20 }, (_, i): Step => [i * 1000, 1, null]),
  },
  {
    name: 'a quiet spell refills no more than the burst',
    steps: [
      [0, 1, null],
      [60_000, 1, null],
      [60_000, 1, null],
      [60_000, 1, null],
      [60_000, 1, 4429],
    ],
  },
  {
    name: 'one turn of exactly its size is accepted',
    steps: [
      [0, 60, null],
      [0, 40, null],
    ],
  },
  {
    name: 'one turn beyond its size (4413)',
    steps: [
      [0, 60, null],
      [0, 41, 4413],
    ],
  },
  {
    name: 'an answer of the agent starts a new turn',
    steps: [
      [0, 60, null],
      [0, 'answer'],
      [0, 60, null],
      [1_000, 'answer'],
      [2_000, 100, null],
    ],
  },
  {
    name: 'the session total counts every turn (4413)',
    steps: [
      [0, 100, null],
      [0, 'answer'],
      [1_000, 100, null],
      [1_000, 'answer'],
      [2_000, 50, null],
      [2_000, 'answer'],
      [3_000, 1, 4413],
    ],
  },
  {
    name: 'a refused message is not counted',
    steps: [
      [0, 60, null],
      [0, 41, 4413],
      [0, 40, null],
    ],
  },
  {
    name: 'a clock going back refills nothing',
    steps: [
      [5_000, 1, null],
      [5_000, 1, null],
      [5_000, 1, null],
      [0, 1, 4429],
    ],
  },
];

describe('chat limits (token bucket and sizes, on a fake clock)', () => {
  it.each(cases)('$name', ({ steps }) => {
    const allowance = new ChatAllowance(limits, steps[0]![0]);
    for (const [atMs, chars, expected] of steps) {
      if (chars === 'answer') {
        allowance.agentAnswered();
        continue;
      }
      const refusal = allowance.message(chars, atMs);
      expect(refusal?.closeCode ?? null).toBe(expected);
    }
  });

  it('says what the limit is in the error frame and the close reason', () => {
    const allowance = new ChatAllowance(CHAT_LIMITS, 0);
    for (let i = 0; i < CHAT_LIMITS.burst; i++) expect(allowance.message(5, 0)).toBeNull();
    expect(allowance.message(5, 0)).toEqual({
      detail: 'Too many messages: at most 10 at once, then 30 a minute',
      closeCode: 4429,
      reason: 'too many messages',
    });
    const wordy = new ChatAllowance(CHAT_LIMITS, 0);
    for (let i = 0; i < 3; i++) expect(wordy.message(4_000, i * 2_000)).toBeNull();
    expect(wordy.message(1, 6_000)).toMatchObject({ closeCode: 4413, reason: 'too much text in one turn' });
  });

  it('bounds the 10,000 messages of the report: at most the burst plus the pace get through', () => {
    const allowance = new ChatAllowance(CHAT_LIMITS, 0);
    let accepted = 0;
    // 10,000 messages in 384 ms (the figures); the first refusal closes the session.
    for (let i = 0; i < 10_000; i++) {
      if (allowance.message(34, Math.floor((i * 384) / 10_000))) break;
      accepted += 1;
    }
    expect(accepted).toBe(10);
  });
});
