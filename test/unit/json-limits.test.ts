import { describe, expect, it } from 'vitest';
import {
  abbreviate,
  findUnstorable,
  MAX_JSON_DEPTH,
  storedSize,
  takeWithinBytes,
} from '../../shared/http/json-limits.ts';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe('findUnstorable', () => {
  it.each([
    [{ field: nested(MAX_JSON_DEPTH - 1) }, undefined],
    [{ field: nested(MAX_JSON_DEPTH) }, ['field', ...Array(MAX_JSON_DEPTH - 1).fill('a')]],
    [[[[1]]], undefined],
  ])('%#', (value, path) => {
    expect(findUnstorable(value)?.path).toEqual(path);
  });

  it.each([
    ['{"a": {"constructor": {"name": "Boolean"}}}', ['a', 'constructor']],
    ['{"a": [{"__proto__": 1}]}', ['a', 0, '__proto__']],
    ['{"prototype": 1, "toString": 2}', undefined],
  ])('reserved keys: %s', (text, path) => {
    const found = findUnstorable(JSON.parse(text));
    expect(found?.path).toEqual(path);
    if (path) expect(found?.error).toBe(`the key '${path.at(-1)}' is reserved`);
  });

  it('walks a body nested a million levels deep without overflowing the stack', () => {
    const text = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const found = findUnstorable(JSON.parse(text));
    expect(found?.path).toHaveLength(MAX_JSON_DEPTH);
  });
});

describe('storedSize (DynamoDB item size rules)', () => {
  it.each([
    ['abc', 3],
    ['zażółć', 10],
    [true, 1],
    [null, 1],
    [12345, 4],
    [{ ab: 'xyz' }, 3 + 1 + 2 + 3],
    [[1, 'a'], 3 + 1 + 2 + 1 + 1],
  ])('%j is %i bytes', (value, bytes) => expect(storedSize(value)).toBe(bytes));

  it('stops counting past the budget', () => {
    expect(storedSize(Array(1_000_000).fill('x'), 100)).toBeLessThan(1000);
  });
});

describe('abbreviate', () => {
  it('cuts long strings and empties nested containers', () => {
    expect(abbreviate('x'.repeat(5000))).toBe(`${'x'.repeat(1000)}…`);
    expect(abbreviate({ a: { b: 1 }, c: [1], d: 'x' })).toEqual({ a: {}, c: [], d: 'x' });
  });
});

describe('takeWithinBytes', () => {
  it('keeps the longest prefix whose JSON array fits', () => {
    const items = ['aaaa', 'bbbb', 'cccc'];
    // ["aaaa","bbbb"] is 15 bytes
    expect(takeWithinBytes(items, 15)).toEqual({ items: ['aaaa', 'bbbb'], bytes: 15, truncated: true });
    expect(takeWithinBytes(items, 22)).toEqual({ items, bytes: 22, truncated: false });
    expect(JSON.stringify(items)).toHaveLength(22);
  });

  it('continues a running total across pages', () => {
    const first = takeWithinBytes(['aaaa'], 15);
    expect(takeWithinBytes(['bbbb', 'cccc'], 15, first.bytes)).toMatchObject({ items: ['bbbb'], truncated: true });
  });
});
