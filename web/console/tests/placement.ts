/**
 * Where a test's expectation results belong in its transcript: each next to the line it is about
 * (a phrase's line, the line a judge's reason quotes, a tool's answer…), the rest after the last
 * line (the conversation's outcome: disposition, step, turns). Pure, for the Tests tab.
 */
export interface Line {
  role: 'user' | 'assistant';
  text: string;
}

export interface Result {
  index: number;
  type: string;
  passed: boolean;
  reason: string;
}

export interface Expectation {
  type: string;
  phrase?: string;
  tool?: string;
  criteria?: string;
}

const normalized = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** The quoted parts of a reason ("…", '…' or “…”), longest first: what a judge cites. */
export function quotedIn(reason: string): string[] {
  const quotes = [...reason.matchAll(/"([^"]{3,})"|“([^”]{3,})”|'([^']{3,})'/g)].map((match) =>
    normalized(match[1] ?? match[2] ?? match[3] ?? ''),
  );
  return quotes.sort((a, b) => b.length - a.length);
}

/** The transcript line a result is about, or null (then it is about the whole conversation). */
export function lineOf(lines: readonly Line[], expectation: Expectation | undefined, result: Result): number | null {
  const texts = lines.map((line) => normalized(line.text));
  const find = (needle: string, role?: Line['role']) => {
    if (!needle) return -1;
    return texts.findIndex((text, i) => (!role || lines[i]!.role === role) && text.includes(needle));
  };
  let found = -1;
  if (expectation?.type === 'phrase_said' && expectation.phrase)
    found = find(normalized(expectation.phrase), 'assistant');
  if (found < 0) for (const quote of quotedIn(result.reason)) if ((found = find(quote)) >= 0) break;
  return found >= 0 ? found : null;
}

/** Results per transcript line (by index), and those about the conversation as a whole. */
export function placeResults(
  lines: readonly Line[],
  expectations: readonly Expectation[],
  results: readonly Result[],
): { byLine: Map<number, Result[]>; overall: Result[] } {
  const byLine = new Map<number, Result[]>();
  const overall: Result[] = [];
  for (const result of results) {
    const line = lineOf(lines, expectations[result.index], result);
    if (line === null) overall.push(result);
    else byLine.set(line, [...(byLine.get(line) ?? []), result]);
  }
  return { byLine, overall };
}

/**
 * Each caller line's response time (by the line's index): an attempt's `turn_latencies_ms` has one
 * per caller turn, in order, the milliseconds until the agent's first words (null: not answered),
 * and each caller turn is one caller line of the transcript. Pure, for the Tests tab.
 */
export function latencyByLine(
  lines: readonly Line[],
  latencies: readonly (number | null)[],
): Map<number, number | null> {
  const byLine = new Map<number, number | null>();
  let turn = 0;
  lines.forEach((line, index) => {
    if (line.role !== 'user') return;
    if (turn < latencies.length) byLine.set(index, latencies[turn]!);
    turn += 1;
  });
  return byLine;
}
