/** One utterance as the media service hears or speaks it. */
export interface TranscriptFragment {
  timestamp: string;
  role: 'user' | 'assistant';
  text: string;
}

export interface TranscriptSegment {
  role: 'user' | 'assistant';
  text: string;
  start: string;
  end: string;
}

const LINE = /^\[([^\]]+)\] (user|assistant): (.*)$/;

/** The raw transcript file: one `[<timestamp>] <role>: <text>` line per fragment. */
export function formatTranscriptFile(fragments: readonly TranscriptFragment[]): string {
  return fragments
    .map(({ timestamp, role, text }) => `[${timestamp}] ${role}: ${text.replace(/\s*\n\s*/g, ' ')}\n`)
    .join('');
}

export function parseTranscriptFile(content: string): TranscriptFragment[] {
  return content
    .split('\n')
    .map((line) => LINE.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, timestamp, role, text]) => ({
      timestamp: timestamp!,
      role: role as TranscriptFragment['role'],
      text: text!,
    }));
}

/** Consecutive fragments of one speaker become one segment spanning their first and last timestamps. */
export function mergeFragments(fragments: readonly TranscriptFragment[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  for (const fragment of fragments) {
    const last = segments.at(-1);
    if (last && last.role === fragment.role) {
      last.text = `${last.text} ${fragment.text}`;
      last.end = fragment.timestamp;
    } else {
      segments.push({ role: fragment.role, text: fragment.text, start: fragment.timestamp, end: fragment.timestamp });
    }
  }
  return segments;
}
