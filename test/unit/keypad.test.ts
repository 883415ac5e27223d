import { describe, expect, it } from 'vitest';
import { isKey, Keypad, type KeypadEntry } from '../../media/src/call/keypad.ts';

/** Key presses and clock ticks on the media clock, in; the entries that end, out. */
type Step = { press: string; atMs: number } | { tick: number };

function run(settings: Partial<ConstructorParameters<typeof Keypad>[0]>, steps: Step[]): KeypadEntry[] {
  const keypad = new Keypad({ collectDigits: null, endKey: '#', timeoutMs: 2000, sendDigits: false, ...settings });
  const entries: KeypadEntry[] = [];
  for (const step of steps) {
    if ('press' in step) {
      const entry = keypad.press(step.press, step.atMs);
      if (entry) entries.push(entry);
    } else if (keypad.timedOut(step.tick)) entries.push(keypad.end());
  }
  return entries;
}

const keys = (text: string, fromMs: number, everyMs = 100): Step[] =>
  [...text].map((press, index) => ({ press, atMs: fromMs + index * everyMs }));

describe('keypad (DTMF entries on the media clock)', () => {
  it.each<{
    name: string;
    settings?: Partial<ConstructorParameters<typeof Keypad>[0]>;
    steps: Step[];
    entries: KeypadEntry[];
  }>([
    {
      name: 'the end key ends the entry, and is not part of it',
      steps: keys('1234#', 1000),
      entries: [{ keys: '1234', startMs: 1000, endMs: 1400 }],
    },
    {
      name: 'the end key alone ends an empty entry',
      steps: keys('#', 500),
      entries: [{ keys: '', startMs: 500, endMs: 520 }],
    },
    {
      name: 'a pause of timeout_seconds after the last key ends it (not before)',
      steps: [...keys('12', 0), { tick: 2099 }, { tick: 2100 }],
      entries: [{ keys: '12', startMs: 0, endMs: 100 }],
    },
    {
      name: 'a single key lasts a frame at least',
      steps: [...keys('7', 300), { tick: 2300 }],
      entries: [{ keys: '7', startMs: 300, endMs: 320 }],
    },
    {
      name: 'collect_digits keys end it without the end key',
      settings: { collectDigits: 3 },
      steps: keys('12345', 0),
      entries: [{ keys: '123', startMs: 0, endMs: 200 }],
    },
    {
      name: 'with no end key, # is a key like the others',
      settings: { endKey: null },
      steps: [...keys('1#', 0), { tick: 2100 }],
      entries: [{ keys: '1#', startMs: 0, endMs: 100 }],
    },
    {
      name: 'a tick with no entry under way ends nothing',
      steps: [{ tick: 10_000 }],
      entries: [],
    },
    {
      name: 'entries follow one another',
      steps: [...keys('1#', 0), ...keys('2#', 5000)],
      entries: [
        { keys: '1', startMs: 0, endMs: 100 },
        { keys: '2', startMs: 5000, endMs: 5100 },
      ],
    },
  ])('$name', ({ settings = {}, steps, entries }) => {
    expect(run(settings, steps)).toEqual(entries);
  });

  it('knows a keypad key from anything else', () => {
    expect(['0', '9', '*', '#', 'A', 'D'].every(isKey)).toBe(true);
    expect(['', 'E', '10', 'a', ' '].some(isKey)).toBe(false);
  });
});
