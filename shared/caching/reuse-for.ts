/**
 * A loader whose answers are reused for `ttlMs` after they were asked for: for reads that may lag
 * behind a change by that much, repeated by many events or calls in a row (an organization's
 * webhook endpoints, an agent's setup). A load that fails is forgotten at once, so the next ask
 * loads again. Answers older than `ttlMs` are dropped whenever another is loaded, so what is kept is
 * what was loaded within the last `ttlMs`, and never more than `maxEntries` keys (oldest first).
 */
export function reuseFor<K, V>(
  ttlMs: number,
  load: (key: K) => Promise<V>,
  maxEntries = 10_000,
): ((key: K) => Promise<V>) & { forget: (key: K) => void } {
  const entries = new Map<K, { at: number; value: Promise<V> }>();
  const reused = (key: K): Promise<V> => {
    const now = Date.now();
    const cached = entries.get(key);
    if (cached && now - cached.at < ttlMs) return cached.value;
    // The Map's order is the order of loading: expired answers are at its head.
    for (const [oldKey, entry] of entries) {
      if (now - entry.at < ttlMs) break;
      entries.delete(oldKey);
    }
    const value = load(key);
    // Deleted then set, so the Map's order stays the order of loading.
    entries.delete(key);
    entries.set(key, { at: now, value });
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return value;
  };
  /** Drops a key's answer (known to be stale), so the next ask loads again. */
  const forget = (key: K) => {
    entries.delete(key);
  };
  return Object.assign(reused, { forget });
}
