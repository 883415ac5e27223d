/** One utterance as the media service hears or speaks it: when it started and ended. */
export interface TranscriptFragment {
  timestamp: string;
  /** Absent in files written before utterances kept their end. */
  end?: string;
  role: 'user' | 'assistant';
  text: string;
}

export interface TranscriptSegment {
  role: 'user' | 'assistant';
  text: string;
  start: string;
  end: string;
}

const LINE = /^\[([^\]/]+)(?:\/([^\]]+))?\] (user|assistant): (.*)$/;

/** The raw transcript file: one `[<start>/<end>] <role>: <text>` line per fragment (an ISO 8601 interval). */
export function formatTranscriptFile(fragments: readonly TranscriptFragment[]): string {
  return fragments
    .map(
      ({ timestamp, end, role, text }) =>
        `[${timestamp}${end ? `/${end}` : ''}] ${role}: ${text.replace(/\s*\n\s*/g, ' ')}\n`,
    )
    .join('');
}

export function parseTranscriptFile(content: string): TranscriptFragment[] {
  return content
    .split('\n')
    .map((line) => LINE.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, timestamp, end, role, text]) => ({
      timestamp: timestamp!,
      ...(end ? { end } : {}),
      role: role as TranscriptFragment['role'],
      text: text!,
    }));
}

/** Consecutive fragments of one speaker become one segment, from the first one's start to the last one's end. */
export function mergeFragments(fragments: readonly TranscriptFragment[]): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  for (const fragment of fragments) {
    const last = segments.at(-1);
    if (last && last.role === fragment.role) {
      last.text = `${last.text} ${fragment.text}`;
      last.end = fragment.end ?? fragment.timestamp;
    } else {
      segments.push({
        role: fragment.role,
        text: fragment.text,
        start: fragment.timestamp,
        end: fragment.end ?? fragment.timestamp,
      });
    }
  }
  return segments;
}
