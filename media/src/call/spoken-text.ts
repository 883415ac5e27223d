/** What of an agent's answer the caller heard, in words: the cut at a barge-in, and sentence ends. */
import type { Reply } from './reply-types.ts';

/** What of an answer played: whole segments before the cut, the cut one up to the last whole word. */
export function spokenText(reply: Pick<Reply, 'bargedInAtMs' | 'segments'>): string {
  const cutAt = reply.bargedInAtMs;
  return (
    reply.segments
      // A chat's sentences take no time: one sent by the moment of the cut was read.
      .filter(
        (segment) =>
          cutAt === null || segment.startMs < cutAt || (segment.startMs === cutAt && segment.endMs === cutAt),
      )
      .map((segment) =>
        cutAt !== null && cutAt < segment.endMs
          ? cutWords(segment.text, (cutAt - segment.startMs) / (segment.endMs - segment.startMs))
          : segment.text,
      )
      .filter(Boolean)
      .join(' ')
  );
}

/** End (exclusive) of the first complete sentence in `text`, or 0. */
export function sentenceEnd(text: string): number {
  const match = /[.!?…]+["')\]]*\s+/.exec(text);
  return match ? match.index + match[0].length : 0;
}

/** The first `fraction` of `text`'s duration, cut back to a whole word. */
export function cutWords(text: string, fraction: number): string {
  if (fraction >= 1) return text;
  const chars = Math.floor(text.length * Math.max(0, fraction));
  const cut = text.slice(0, chars);
  return (text[chars] === ' ' || chars === text.length ? cut : cut.slice(0, Math.max(0, cut.lastIndexOf(' ')))).trim();
}
