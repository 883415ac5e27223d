import { describe, expect, it } from 'vitest';
import {
  formatTranscriptFile,
  mergeFragments,
  parseTranscriptFile,
  type TranscriptFragment,
} from '../../shared/domain/transcripts.ts';

const f = (second: number, role: TranscriptFragment['role'], text: string): TranscriptFragment => ({
  timestamp: `2026-11-22T10:00:${String(second).padStart(2, '0')}.000Z`,
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
        start: f(segment.start, 'user', '').timestamp,
        end: f(segment.end, 'user', '').timestamp,
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
});
