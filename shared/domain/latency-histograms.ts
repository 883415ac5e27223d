/**
 * Per-agent per-day latency histograms (`GET /usage/latency`): each call adds its turns' values
 * into fixed buckets when it ends, and a period's percentiles are read back from the buckets of its
 * days added together, so they are exact to a bucket's width, never averages of percentiles.
 *
 * The buckets are fixed forever (stored counts are indexed by them): bucket 0 holds 0 ms, and
 * bucket i ≥ 1 starts at the i-th distinct value of ⌊2^(k/8)⌋ for k = 0, 1, … 136 (1, 2, … 14,
 * 16, 17, 19, 20, 22, … 1024, 1116, 1217, … 131072 ms: 120 buckets) and ends where the next
 * starts; the last is open. A percentile is reported as its bucket's middle: within 1 ms of the
 * true value up to 16 ms, 5.6 % up to 100 ms and 4.6 % above.
 */
import { LATENCY_COMPONENTS, type LatencyComponent, type LatencyTurn, type Percentiles } from './call-latency.ts';

const STEPS_PER_DOUBLING = 8;
const LAST_STEP = 17 * STEPS_PER_DOUBLING;

/** The first value of each bucket, ascending. */
export const LATENCY_BUCKET_STARTS: readonly number[] = [
  0,
  ...new Set(Array.from({ length: LAST_STEP + 1 }, (_, k) => Math.floor(2 ** (k / STEPS_PER_DOUBLING)))),
];

/** The bucket that holds `valueMs` (a whole, non-negative number of ms). */
export function bucketOf(valueMs: number): number {
  let low = 0;
  let high = LATENCY_BUCKET_STARTS.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (LATENCY_BUCKET_STARTS[middle]! <= valueMs) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** What a bucket's values are reported as: its middle (its start for the open last bucket). */
export function bucketValue(bucket: number): number {
  const start = LATENCY_BUCKET_STARTS[bucket]!;
  const next = LATENCY_BUCKET_STARTS[bucket + 1];
  return next === undefined ? start : Math.floor((start + next - 1) / 2);
}

/** Counts per bucket of each component, and the turns they came from. */
export interface LatencyHistogram {
  turn_count: number;
  counts: Record<LatencyComponent, Record<number, number>>;
}

export const emptyHistogram = (): LatencyHistogram => ({
  turn_count: 0,
  counts: Object.fromEntries(LATENCY_COMPONENTS.map((component) => [component, {}])) as LatencyHistogram['counts'],
});

/** What a call adds to its agent's day: each turn's value of each component (where it has one). */
export function histogramIncrements(turns: readonly LatencyTurn[]): LatencyHistogram {
  const histogram = emptyHistogram();
  histogram.turn_count = turns.length;
  for (const turn of turns)
    for (const component of LATENCY_COMPONENTS) {
      const value = turn[component];
      if (value === null) continue;
      const counts = histogram.counts[component];
      const bucket = bucketOf(value);
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
  return histogram;
}

/** `into` plus `other` (into is changed and returned). */
export function addHistogram(into: LatencyHistogram, other: LatencyHistogram): LatencyHistogram {
  into.turn_count += other.turn_count;
  for (const component of LATENCY_COMPONENTS)
    for (const [bucket, count] of Object.entries(other.counts[component])) {
      const counts = into.counts[component];
      counts[Number(bucket)] = (counts[Number(bucket)] ?? 0) + count;
    }
  return into;
}

/** The nearest-rank `percent` of the values counted, as its bucket's value; null when none are. */
export function histogramPercentile(counts: Record<number, number>, percent: number): number | null {
  const buckets = Object.entries(counts)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a - b);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((percent / 100) * total));
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return bucketValue(bucket);
  }
  return null;
}

/** p50 and p95 of each component, and the turn count, of a histogram. */
export function histogramSummary(
  histogram: LatencyHistogram,
): { turn_count: number } & Record<LatencyComponent, Percentiles> {
  const summary = { turn_count: histogram.turn_count } as { turn_count: number } & Record<
    LatencyComponent,
    Percentiles
  >;
  for (const component of LATENCY_COMPONENTS) {
    const counts = histogram.counts[component];
    summary[component] = { p50: histogramPercentile(counts, 50), p95: histogramPercentile(counts, 95) };
  }
  return summary;
}

/** One agent's day as stored. */
export interface AgentDayHistogram {
  day: string;
  agent_id: number;
  histogram: LatencyHistogram;
}

/**
 * The report's items: per `day` or `month` and agent, the days' histograms added together, sorted
 * by period then agent; a period and agent without turns has no item.
 */
export function latencyReport(days: readonly AgentDayHistogram[], groupBy: 'day' | 'month') {
  const periods = new Map<string, { period: string; agent_id: number; histogram: LatencyHistogram }>();
  for (const { day, agent_id, histogram } of days) {
    const period = groupBy === 'day' ? day : day.slice(0, 7);
    const key = `${period}#${agent_id}`;
    const entry = periods.get(key) ?? { period, agent_id, histogram: emptyHistogram() };
    addHistogram(entry.histogram, histogram);
    periods.set(key, entry);
  }
  return [...periods.values()]
    .filter(({ histogram }) => histogram.turn_count > 0)
    .sort((a, b) => a.period.localeCompare(b.period) || a.agent_id - b.agent_id)
    .map(({ period, agent_id, histogram }) => ({ period, agent_id, ...histogramSummary(histogram) }));
}
