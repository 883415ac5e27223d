/**
 * Knowledge-base retrieval, deliberately simple and documented: documents are cut into passages of
 * about CHUNK_CHARS characters at paragraph or sentence boundaries (with a short overlap), and a
 * query ranks passages by BM25 (k1 = 1.2, b = 0.75) over lower-cased word tokens.
 */
export const CHUNK_CHARS = 800;
const OVERLAP_CHARS = 100;
const K1 = 1.2;
const B = 0.75;

/** Words of 2+ letters or digits, lower-cased, accents kept (Unicode-aware). */
export const tokenize = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];

/** Passages of at most `size` characters, cut at the last paragraph or sentence end that fits. */
export function chunkText(text: string, size = CHUNK_CHARS): string[] {
  const clean = text
    .replace(/\r\n/g, '\n')
    .replace(/[ \t]+/g, ' ')
    .trim();
  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(clean.length, start + size);
    if (end < clean.length) {
      const window = clean.slice(start, end);
      const cut = Math.max(window.lastIndexOf('\n\n'), window.lastIndexOf('. '), window.lastIndexOf('\n'));
      if (cut > size / 2) end = start + cut + 1;
    }
    const chunk = clean.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= clean.length) break;
    start = Math.max(end - OVERLAP_CHARS, start + 1);
  }
  return chunks;
}

export interface Passage {
  id: string;
  text: string;
}

/** The passages that best answer `query`, best first, with their BM25 scores (only those that match). */
export function rankPassages<T extends Passage>(
  query: string,
  passages: readonly T[],
  limit: number,
): (T & { score: number })[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || passages.length === 0) return [];
  const documents = passages.map((passage) => tokenize(passage.text));
  const averageLength = documents.reduce((sum, tokens) => sum + tokens.length, 0) / documents.length || 1;
  const documentFrequency = new Map(
    terms.map((term) => [term, documents.filter((tokens) => tokens.includes(term)).length]),
  );
  return passages
    .map((passage, index) => {
      const tokens = documents[index]!;
      let score = 0;
      for (const term of terms) {
        const frequency = tokens.filter((token) => token === term).length;
        if (!frequency) continue;
        const df = documentFrequency.get(term)!;
        const idf = Math.log(1 + (passages.length - df + 0.5) / (df + 0.5));
        score += (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * tokens.length) / averageLength));
      }
      return { ...passage, score };
    })
    .filter((passage) => passage.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
