import { describe, expect, it } from 'vitest';
import { chunkText, rankPassages, tokenize } from '../../shared/domain/knowledge.ts';

describe('tokenize', () => {
  it.each([
    ['Opening hours: Mon–Fri 9-17!', ['opening', 'hours', 'mon', 'fri', '17']],
    ['Zażółć gęślą jaźń', ['zażółć', 'gęślą', 'jaźń']],
    ['a I x', []],
  ])('%s', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });
});

describe('chunkText', () => {
  it('keeps short text whole', () => {
    expect(chunkText('One paragraph.')).toEqual(['One paragraph.']);
  });

  it('cuts long text at sentence ends, every passage within the size, covering the whole text', () => {
    const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(' ');
    const chunks = chunkText(text, 200);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(200);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.endsWith('.')).toBe(true);
    expect(chunks.at(-1)).toContain('Sentence number 59');
  });
});

describe('rankPassages (BM25)', () => {
  const passages = [
    { id: 'hours', text: 'Our opening hours are Monday to Friday, 9 to 17. Closed on holidays.' },
    { id: 'prices', text: 'A check-up costs 200 PLN. Teeth whitening costs 800 PLN.' },
    { id: 'address', text: 'The clinic is at Marszałkowska 1, Warsaw. Parking behind the building.' },
  ];

  it.each([
    ['When are you open? opening hours', ['hours']],
    ['how much does whitening cost', ['prices']],
    ['where is the clinic, is there parking', ['address']],
    ['quantum physics', []],
  ])('%s → %j', (query, expected) => {
    expect(rankPassages(query, passages, 1).map((passage) => passage.id)).toEqual(expected);
  });

  it('orders by score and honours the limit', () => {
    const ranked = rankPassages('costs clinic', passages, 5);
    expect(ranked.map((passage) => passage.id)).toEqual(['prices', 'address']);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
  });
});
