/**
 * A voice test's transcript from what happened on the line: the caller's turns (when each began)
 * and the words the caller heard (when each stretch of them began playing, as its speech-to-text
 * reports it), in the line's order. The agent's words heard in a row make one line, so an answer
 * cut by the caller stands before the caller's words that cut it. Pure.
 */
export interface LineEvent {
  role: 'user' | 'assistant';
  /** Line ms: when the caller's turn began, or when the words heard began playing. */
  atMs: number;
  text: string;
}

export function heardTranscript(events: readonly LineEvent[]): { role: 'user' | 'assistant'; text: string }[] {
  const ordered = events
    .map((event, index) => ({ event, index }))
    // By time; at the same moment, in the order they were noted.
    .sort((a, b) => a.event.atMs - b.event.atMs || a.index - b.index)
    .map(({ event }) => event);
  const lines: { role: 'user' | 'assistant'; text: string }[] = [];
  for (const { role, text } of ordered) {
    const last = lines.at(-1);
    if (role === 'assistant' && last?.role === 'assistant') last.text = `${last.text} ${text}`;
    else lines.push({ role, text });
  }
  return lines;
}

/**
 * The number a voice case's call dials when it goes over the local carrier: the phone its
 * simulated caller holds there (local/carrier/handsets.ts). From `random` (0 ≤ random < 1), one
 * of a million fictional numbers (+1 555), its last digit 0, so that the carrier's callee
 * directory answers it as a person (local/carrier/callee-directory.ts). Pure.
 */
export function testCallerNumber(random: number): string {
  return `+1555${String(Math.floor(random * 1e6) % 1e6).padStart(6, '0')}0`;
}
