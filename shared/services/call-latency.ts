/**
 * A call's latency on the record when its media stream ends: the run's `latency`, and its turns
 * added to the agent's histograms of the day it ended (UTC, as usage counts calls); then the
 * agents' percentiles over a period (`GET /usage/latency`).
 */
import type { CallLatency, LatencyTurn } from '../domain/call-latency.ts';
import { histogramIncrements, latencyReport } from '../domain/latency-histograms.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { addLatencyHistogram, listLatencyHistograms, recordRunLatency } from '../repositories/run-latency.ts';
import { getAgent } from './agents.ts';
import { reportRange } from './usage.ts';

export async function recordCallLatency(
  ref: RunRef,
  endedAt: string,
  latency: { call: CallLatency; turns: readonly LatencyTurn[] },
): Promise<void> {
  await Promise.all([
    recordRunLatency(ref, latency.call),
    latency.turns.length
      ? addLatencyHistogram(ref.organizationId, ref.agentId, endedAt.slice(0, 10), histogramIncrements(latency.turns))
      : undefined,
  ]);
}

const DAY_MS = 86_400_000;
const dayOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

/**
 * p50/p95 per period and agent. The range is whole UTC days: from `from`'s day up to `to`
 * (exclusive; a `to` within a day includes that day), given back as dates.
 */
export async function latencyUsage(
  orgId: number,
  query: { from?: string; to?: string; group_by: 'day' | 'month'; agent_id?: string },
) {
  const range = reportRange(query);
  const firstDay = range.from.slice(0, 10);
  const lastDay = dayOf(Date.parse(range.to) - 1);
  // An integer id is read as is: a deleted agent's days stay (they hold no content).
  const agentId =
    query.agent_id === undefined
      ? undefined
      : /^\d+$/.test(query.agent_id)
        ? Number(query.agent_id)
        : (await getAgent(orgId, query.agent_id)).id;
  const days = await listLatencyHistograms(orgId, firstDay, lastDay, agentId);
  return {
    from: firstDay,
    to: dayOf(Date.parse(lastDay) + DAY_MS),
    group_by: query.group_by,
    items: latencyReport(days, query.group_by),
  };
}
