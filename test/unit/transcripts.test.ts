import { describe, expect, it } from 'vitest';
import {
  formatTranscriptFile,
  mergeFragments,
  parseTranscriptFile,
  type TranscriptFragment,
} from '../../shared/domain/transcripts.ts';

const at = (second: number) => `2026-11-22T10:00:${String(second).padStart(2, '0')}.000Z`;
/** A fragment from `second` to `until` (no end: a file written before fragments kept theirs). */
const f = (second: number, role: TranscriptFragment['role'], text: string, until?: number): TranscriptFragment => ({
  timestamp: at(second),
  ...(until === undefined ? {} : { end: at(until) }),
  role,
  text,
});

describe('mergeFragments', () => {
  it.each<[string, TranscriptFragment[], { role: string; text: string; start: number; end: number }[]]>([
    ['empty', [], []],
    ['single', [f(1, 'assistant', 'Hello')], [{ role: 'assistant', text: 'Hello', start: 1, end: 1 }]],
    [
      'consecutive fragments of one speaker join',
      [
        f(1, 'assistant', 'Hello,'),
        f(2, 'assistant', 'this is Ann.'),
        f(4, 'user', 'Hi.'),
        f(6, 'assistant', 'Is now a good time?'),
      ],
      [
        { role: 'assistant', text: 'Hello, this is Ann.', start: 1, end: 2 },
        { role: 'user', text: 'Hi.', start: 4, end: 4 },
        { role: 'assistant', text: 'Is now a good time?', start: 6, end: 6 },
      ],
    ],
    [
      'a segment ends where its last fragment ended',
      [f(1, 'assistant', 'Hello,', 2), f(3, 'assistant', 'this is Ann.', 5), f(6, 'user', 'Hi.', 7)],
      [
        { role: 'assistant', text: 'Hello, this is Ann.', start: 1, end: 5 },
        { role: 'user', text: 'Hi.', start: 6, end: 7 },
      ],
    ],
    [
      'alternating speakers stay apart',
      [f(1, 'user', 'a'), f(2, 'assistant', 'b'), f(3, 'user', 'c')],
      [
        { role: 'user', text: 'a', start: 1, end: 1 },
        { role: 'assistant', text: 'b', start: 2, end: 2 },
        { role: 'user', text: 'c', start: 3, end: 3 },
      ],
    ],
  ])('%s', (_name, fragments, expected) => {
    expect(mergeFragments(fragments)).toEqual(
      expected.map((segment) => ({
        ...segment,
        start: at(segment.start),
        end: at(segment.end),
      })),
    );
  });
});

describe('raw transcript file', () => {
  it('writes one line per fragment and reads it back', () => {
    const fragments = [f(1, 'assistant', 'Hello: welcome'), f(2, 'user', 'Two\nlines')];
    const file = formatTranscriptFile(fragments);
    expect(file).toBe(
      '[2026-11-22T10:00:01.000Z] assistant: Hello: welcome\n[2026-11-22T10:00:02.000Z] user: Two lines\n',
    );
    expect(parseTranscriptFile(file)).toEqual([fragments[0], { ...fragments[1], text: 'Two lines' }]);
  });

  it("keeps each fragment's end as an ISO 8601 interval, and reads lines written without one", () => {
    const fragments = [f(1, 'assistant', 'Hello', 3), f(4, 'user', 'Hi', 5)];
    const file = formatTranscriptFile(fragments);
    expect(file.split('\n')[0]).toBe('[2026-11-22T10:00:01.000Z/2026-11-22T10:00:03.000Z] assistant: Hello');
    expect(parseTranscriptFile(file)).toEqual(fragments);
    expect(parseTranscriptFile(`${file}[2026-11-22T10:00:06.000Z] user: Bye\n`).at(-1)).toEqual(f(6, 'user', 'Bye'));
  });
});
