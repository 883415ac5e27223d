import { smsCost } from './text-messages.ts';

/** A billing record: what survives a run's deletion. */
export interface UsageEntry {
  run_id: number;
  workflow_id: number;
  status: string;
  started_at: string;
  ended_at: string;
  duration_seconds: number;
  cost_usd: number;
  /** An agent test's conversation: its test run. */
  test_run_id?: number;
  /** The texts the call sent, their segments and their cost (part of `cost_usd`); absent: none. */
  sms_messages?: number;
  sms_segments?: number;
  sms_usd?: number;
}

export type UsageGrouping = 'day' | 'month';

export interface UsageFigures {
  calls: number;
  answered_calls: number;
  /** Billed minutes: every call rounded up to whole minutes. */
  minutes: number;
  cost_usd: number;
  /** Texts sent during the calls (received ones are not billed), their segments and their cost (within `cost_usd`). */
  sms_messages: number;
  sms_segments: number;
  sms_usd: number;
}

/** The figures of a period, or an agent, without calls (the console draws such days as zeros too). */
export const emptyUsage = (): UsageFigures => ({
  calls: 0,
  answered_calls: 0,
  minutes: 0,
  cost_usd: 0,
  sms_messages: 0,
  sms_segments: 0,
  sms_usd: 0,
});
const round = (usd: number) => Math.round(usd * 10_000) / 10_000;

function add(figures: UsageFigures, entry: UsageEntry): void {
  figures.calls += 1;
  if (entry.status === 'completed') figures.answered_calls += 1;
  figures.minutes += Math.ceil(entry.duration_seconds / 60);
  figures.cost_usd = round(figures.cost_usd + entry.cost_usd);
  const texts = smsOf(entry);
  figures.sms_messages += texts.sms_messages;
  figures.sms_segments += texts.sms_segments;
  figures.sms_usd = round(figures.sms_usd + texts.sms_usd);
}

/** A record's texts; one written before `sms_usd` was kept is priced by its segments. */
const smsOf = (entry: UsageEntry) => ({
  sms_messages: entry.sms_messages ?? 0,
  sms_segments: entry.sms_segments ?? 0,
  sms_usd: entry.sms_usd ?? smsCost(entry.sms_segments ?? 0),
});

/** `2026-11-23` for a day, `2026-11` for a month, in UTC (calls are billed by their end). */
export const periodOf = (endedAt: string, grouping: UsageGrouping): string =>
  endedAt.slice(0, grouping === 'day' ? 10 : 7);

/** Totals, per period (oldest first) and per agent (most minutes first). */
export function aggregateUsage(entries: readonly UsageEntry[], grouping: UsageGrouping) {
  const totals = emptyUsage();
  const periods = new Map<string, UsageFigures>();
  const agents = new Map<number, UsageFigures>();
  for (const entry of entries) {
    add(totals, entry);
    const period = periodOf(entry.ended_at, grouping);
    if (!periods.has(period)) periods.set(period, emptyUsage());
    add(periods.get(period)!, entry);
    if (!agents.has(entry.workflow_id)) agents.set(entry.workflow_id, emptyUsage());
    add(agents.get(entry.workflow_id)!, entry);
  }
  return {
    totals,
    periods: [...periods].sort(([a], [b]) => a.localeCompare(b)).map(([period, figures]) => ({ period, ...figures })),
    agents: [...agents]
      .sort(([, a], [, b]) => b.minutes - a.minutes)
      .map(([workflowId, figures]) => ({ workflow_id: workflowId, ...figures })),
  };
}

/** Every UTC day from `from` to `to` (exclusive end), as `YYYY-MM-DD`. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(to);
  for (let day = Date.parse(from.slice(0, 10)); day < end; day += 86_400_000)
    days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

/** One row per UTC day of the range, days without calls included (zeros), oldest first. */
export function dailyBreakdown(entries: readonly UsageEntry[], from: string, to: string) {
  const byDay = new Map(aggregateUsage(entries, 'day').periods.map(({ period, ...figures }) => [period, figures]));
  return daysBetween(from, to).map((date) => ({ date, ...(byDay.get(date) ?? emptyUsage()) }));
}

/** A billing record as the earlier `/organizations/usage/runs` listed it. */
export const billedRun = (entry: UsageEntry) => ({
  ...entry,
  billed_minutes: Math.ceil(entry.duration_seconds / 60),
  ...smsOf(entry),
});
