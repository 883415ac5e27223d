/** Sequential request latency against the local stack: p50/p99 of N requests. */
export interface LatencyFigures {
  requests: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export async function measureSequential(requests: number, send: () => Promise<Response>): Promise<LatencyFigures> {
  const durations: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const started = performance.now();
    const response = await send();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`Request ${i} failed with ${response.status}`);
    durations.push(performance.now() - started);
  }
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    requests,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: durations.reduce((sum, d) => sum + d, 0) / durations.length,
    max: sorted.at(-1)!,
  };
}
