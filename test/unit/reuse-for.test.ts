import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reuseFor } from '../../shared/caching/reuse-for.ts';

describe('reuseFor', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A loader counting its loads: the answer names the key and the load it came from. */
  function countingLoader() {
    const loads: string[] = [];
    const load = async (key: string) => {
      loads.push(key);
      return `${key}:${loads.length}`;
    };
    return { loads, load };
  }

  it.each([
    { after: 0, loads: 1, answer: 'a:1' },
    { after: 4_999, loads: 1, answer: 'a:1' },
    { after: 5_000, loads: 2, answer: 'a:2' },
  ])('asked again $after ms later: $loads load(s)', async ({ after, loads, answer }) => {
    const loader = countingLoader();
    const cached = reuseFor(5_000, loader.load);
    expect(await cached('a')).toBe('a:1');
    vi.advanceTimersByTime(after);
    expect(await cached('a')).toBe(answer);
    expect(loader.loads).toHaveLength(loads);
  });

  it('keeps keys apart', async () => {
    const loader = countingLoader();
    const cached = reuseFor(5_000, loader.load);
    expect([await cached('a'), await cached('b'), await cached('a')]).toEqual(['a:1', 'b:2', 'a:1']);
  });

  it('forgets a failed load, so the next ask loads again', async () => {
    let calls = 0;
    const cached = reuseFor(5_000, async (key: string) => {
      calls += 1;
      if (calls === 1) throw new Error('throttled');
      return key;
    });
    await expect(cached('a')).rejects.toThrow('throttled');
    expect(await cached('a')).toBe('a');
    expect(calls).toBe(2);
  });

  it('loads a forgotten key again at the next ask, and only that key', async () => {
    const loader = countingLoader();
    const cached = reuseFor(5_000, loader.load);
    await cached('a');
    await cached('b');
    cached.forget('a');
    expect([await cached('a'), await cached('b')]).toEqual(['a:3', 'b:2']);
  });

  it('drops the oldest key beyond maxEntries', async () => {
    const loader = countingLoader();
    const cached = reuseFor(5_000, loader.load, 2);
    await cached('a');
    await cached('b');
    await cached('c');
    expect(await cached('b')).toBe('b:2');
    expect(await cached('a')).toBe('a:4');
    expect(loader.loads).toEqual(['a', 'b', 'c', 'a']);
  });
});
