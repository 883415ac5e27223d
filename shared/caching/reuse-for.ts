/**
 * A loader whose answers are reused for `ttlMs` after they were asked for: for reads that may lag
 * behind a change by that much, repeated by many events or calls in a row (an organization's
 * webhook endpoints, an agent's setup). A load that fails is forgotten at once, so the next ask
 * loads again; at most `maxEntries` keys are kept, the oldest dropped first.
 */
export function reuseFor<K, V>(
  ttlMs: number,
  load: (key: K) => Promise<V>,
  maxEntries = 10_000,
): (key: K) => Promise<V> {
  const entries = new Map<K, { at: number; value: Promise<V> }>();
  return (key) => {
    const cached = entries.get(key);
    if (cached && Date.now() - cached.at < ttlMs) return cached.value;
    const value = load(key);
    // Deleted then set, so the Map's order stays the order of loading: the first key is the oldest.
    entries.delete(key);
    entries.set(key, { at: Date.now(), value });
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return value;
  };
}
