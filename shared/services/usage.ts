import { writeCsv } from './csv.ts';
import { BadRequestError } from '../domain/errors.ts';
import { aggregateUsage, billedRun, dailyBreakdown, type UsageGrouping } from '../domain/usage.ts';
import { pageOfItems, type PageRequest } from '../domain/pagination.ts';
import { listUsage } from '../repositories/usage.ts';
import { getAgent } from './agents.ts';

/** A report covers at most about a year: the records are read in one go. */
const MAX_RANGE_DAYS = 366;

export function reportRange(query: { from?: string; to?: string }, now = new Date()): { from: string; to: string } {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const from = new Date(query.from ?? monthStart.toISOString()).toISOString();
  const to = new Date(query.to ?? now.toISOString()).toISOString();
  if (from >= to) throw new BadRequestError('`from` must be before `to`');
  if (Date.parse(to) - Date.parse(from) > MAX_RANGE_DAYS * 86_400_000)
    throw new BadRequestError(`A usage report covers at most ${MAX_RANGE_DAYS} days`);
  return { from, to };
}

export async function usageReport(orgId: number, query: { from?: string; to?: string; group_by: UsageGrouping }) {
  const { from, to } = reportRange(query);
  const usage = aggregateUsage(await listUsage(orgId, from, to), query.group_by);
  const agents = await Promise.all(
    usage.agents.map(async (agent) => ({
      ...agent,
      workflow_name: (await getAgent(orgId, String(agent.workflow_id)).catch(() => undefined))?.name ?? '',
    })),
  );
  return { from, to, group_by: query.group_by, totals: usage.totals, periods: usage.periods, agents };
}

const COLUMNS = [
  'run_id',
  'workflow_id',
  'status',
  'started_at',
  'ended_at',
  'duration_seconds',
  'billed_minutes',
  'cost_usd',
] as const;

/** One row per call in the range (services/csv.ts: spreadsheet-safe). */
export async function usageCsv(orgId: number, query: { from?: string; to?: string }): Promise<string> {
  const { from, to } = reportRange(query);
  return writeCsv((await listUsage(orgId, from, to)).map(billedRun), COLUMNS, { header: true });
}

/** The current billing period: the calendar month (UTC) so far. `GET /organizations/usage/current-period`. */
export async function currentPeriod(orgId: number, now = new Date()) {
  const { from, to } = reportRange({}, now);
  const periodEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  const { totals } = aggregateUsage(await listUsage(orgId, from, to), 'month');
  return { period_start: from, period_end: periodEnd, as_of: to, ...totals };
}

/** Per-day figures with zero days filled in. `GET /organizations/usage/daily-breakdown`. */
export async function usageDailyBreakdown(orgId: number, query: { from?: string; to?: string }) {
  const { from, to } = reportRange(query);
  return { from, to, days: dailyBreakdown(await listUsage(orgId, from, to), from, to) };
}

/** Billing records of calls, newest first, one page. `GET /organizations/usage/runs`. */
export async function billedRuns(orgId: number, query: { from?: string; to?: string } & PageRequest) {
  const { from, to } = reportRange(query);
  const entries = (await listUsage(orgId, from, to)).reverse();
  const page = pageOfItems(entries, query);
  return { from, to, ...page, items: page.items.map(billedRun) };
}
