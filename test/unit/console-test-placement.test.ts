import { describe, expect, it } from 'vitest';
import { latencyByLine, lineOf, placeResults, quotedIn, type Line } from '../../web/console/tests/placement.ts';

const transcript: Line[] = [
  { role: 'assistant', text: 'Hello, North Clinic here. This call is recorded.' },
  { role: 'user', text: 'A visit on Monday, please, this call is recorded?' },
  { role: 'assistant', text: 'Monday at  nine is free.' },
];
const result = (index: number, type: string, reason: string, passed = false) => ({ index, type, passed, reason });

describe("the Tests tab's placement of results in a transcript", () => {
  it.each<[string, Parameters<typeof lineOf>[1], string, number | null]>([
    [
      "a phrase: the agent's line that says it (not the caller's)",
      { type: 'phrase_said', phrase: 'THIS call is recorded' },
      'the agent never said it',
      0,
    ],
    ["a judge's quote, spaces and case ignored", { type: 'judged' }, 'The agent offered "monday at nine".', 2],
    ['the longest quote first', { type: 'judged' }, '\'Monday\' then "Monday at nine is free"', 2],
    ['a quote of the caller', { type: 'judged' }, 'The caller asked for "a visit on monday"', 1],
    ['nothing quoted: the whole conversation', { type: 'disposition' }, "the disposition is 'completed'", null],
    ['a quote said by no one', { type: 'judged' }, 'Nothing said matches "mortgages"', null],
  ])('%s', (_case, expectation, reason, line) =>
    expect(lineOf(transcript, expectation, result(0, expectation!.type, reason))).toBe(line),
  );

  it('quotes of three characters or more, in any of three quote marks', () =>
    expect(quotedIn('said "hi", “a longer one” and \'mid\'')).toEqual(['a longer one', 'mid']));

  it('groups results by line, the rest as overall', () => {
    const placed = placeResults(
      transcript,
      [{ type: 'phrase_said', phrase: 'recorded' }, { type: 'disposition' }, { type: 'judged' }],
      [result(0, 'phrase_said', 'x', true), result(1, 'disposition', 'no'), result(2, 'judged', 'said "nine is free"')],
    );
    expect([...placed.byLine.entries()].map(([line, items]) => [line, items.map((item) => item.index)])).toEqual([
      [0, [0]],
      [2, [2]],
    ]);
    expect(placed.overall.map((item) => item.index)).toEqual([1]);
  });
});

describe("the Tests tab's response time of each caller turn", () => {
  const line = (role: Line['role'], text = '') => ({ role, text });
  it.each<[string, Line[], (number | null)[], [number, number | null][]]>([
    ['beside each caller line, in order', transcript, [420], [[1, 420]]],
    [
      // A voice transcript: the greeting, a cut answer before the words that cut it, keys and a silence as caller lines.
      'a turn not answered, and turns back to back',
      [line('assistant'), line('user'), line('assistant'), line('user'), line('user'), line('assistant')],
      [310, null, 95],
      [
        [1, 310],
        [3, null],
        [4, 95],
      ],
    ],
    ['an attempt that measured no turn (an error before the first)', transcript, [], []],
    ['no caller line', [line('assistant')], [], []],
  ])('%s', (_case, lines, latencies, expected) => expect([...latencyByLine(lines, latencies)]).toEqual(expected));
});
