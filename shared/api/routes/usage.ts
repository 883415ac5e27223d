import {
  BilledRunPage,
  BilledRunsQuery,
  CurrentPeriodUsage,
  DailyUsage,
  UsageCsvQuery,
  UsageQuery,
  UsageReport,
} from '../../schemas/usage.ts';
import { LatencyUsage, LatencyUsageQuery } from '../../schemas/latency.ts';
import { BAD_REQUEST, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

const USAGE_DESCRIPTION =
  'Calls, billed minutes, cost and the text messages the calls sent (messages, segments, their cost within `cost_usd`) for a period, per day or month and per agent, from the billing records (they survive run deletion). ' +
  'Range at most 366 days; `from` must be before `to` (400 otherwise).';

export const usageRoutes = {
  usage: defineRoute({
    operationId: 'getUsage',
    method: 'GET',
    path: '/usage',
    group: 'usage',
    summary: 'Usage: calls, minutes and cost',
    description: USAGE_DESCRIPTION,
    tags: ['Usage and reports'],
    request: { query: UsageQuery },
    responses: { 200: { description: 'Usage', schema: UsageReport }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  latency: defineRoute({
    operationId: 'getLatencyUsage',
    method: 'GET',
    path: '/usage/latency',
    group: 'usage',
    summary: "Latency: each agent's p50 and p95 per turn",
    description:
      "Per day or month and per agent, the p50 and p95 of each turn's voice-to-voice latency and of its components (transcription, " +
      'endpointing, model, tools, text-to-speech, our own overhead), over the turns of the calls that ended in the period (UTC days; a ' +
      '`to` within a day includes that day). From per-agent daily histograms kept as each call ends: exact to a bucket (within 4.6 % from 100 ms up), ' +
      'never averages of percentiles; they hold no content and stay when runs are deleted. `agent_id` narrows it to one agent (404 if ' +
      'a public id names none). Range at most 366 days; `from` must be before `to` (400 otherwise).',
    tags: ['Usage and reports'],
    request: { query: LatencyUsageQuery },
    responses: {
      200: { description: 'Latency per period and agent', schema: LatencyUsage },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  legacyUsage: defineRoute({
    operationId: 'getUsageLegacy',
    method: 'GET',
    path: '/organizations/usage',
    group: 'usage',
    summary: 'Usage (earlier address)',
    description: `Same as \`GET /usage\`; kept for existing integrations. ${USAGE_DESCRIPTION}`,
    tags: ['Usage and reports'],
    request: { query: UsageQuery },
    responses: { 200: { description: 'Usage', schema: UsageReport }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  legacyCurrentPeriod: defineRoute({
    operationId: 'getUsageCurrentPeriodLegacy',
    method: 'GET',
    path: '/organizations/usage/current-period',
    group: 'usage',
    summary: 'Usage of the current billing period (earlier address)',
    description:
      'Calls, answered calls, billed minutes and cost of the current calendar month (UTC) so far, from the billing records. Kept for ' +
      'integrations built on the earlier service; new integrations use `GET /usage`.',
    tags: ['Usage and reports'],
    request: {},
    responses: { 200: { description: 'The current period so far', schema: CurrentPeriodUsage }, ...UNAUTHORIZED },
  }),
  legacyDailyBreakdown: defineRoute({
    operationId: 'getUsageDailyBreakdownLegacy',
    method: 'GET',
    path: '/organizations/usage/daily-breakdown',
    group: 'usage',
    summary: 'Usage per day (earlier address)',
    description: `One item per UTC day of the range, days without calls included with zeros. Same figures as \`GET /usage?group_by=day\`. ${USAGE_DESCRIPTION}`,
    tags: ['Usage and reports'],
    request: { query: UsageCsvQuery },
    responses: {
      200: { description: 'Days of the range', schema: DailyUsage },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  legacyBilledRuns: defineRoute({
    operationId: 'listUsageRunsLegacy',
    method: 'GET',
    path: '/organizations/usage/runs',
    group: 'usage',
    summary: 'Billed calls, newest first (earlier address)',
    description: `The billing record of every call that ended in the range, paginated, newest first. Records stay after a run is deleted. ${USAGE_DESCRIPTION}`,
    tags: ['Usage and reports'],
    request: { query: BilledRunsQuery },
    responses: {
      200: { description: 'One page', schema: BilledRunPage },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  legacyBilledRunsReport: defineRoute({
    operationId: 'getUsageRunsReportLegacy',
    method: 'GET',
    path: '/organizations/usage/runs/report',
    group: 'usage',
    summary: 'Billed calls as CSV (earlier address)',
    description: `The same CSV as \`GET /reports/usage.csv\`: one row per call, oldest first. ${USAGE_DESCRIPTION}`,
    tags: ['Usage and reports'],
    request: { query: UsageCsvQuery },
    responses: { 200: { description: 'CSV', contentType: 'text/csv' }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
  usageCsv: defineRoute({
    operationId: 'getUsageCsv',
    method: 'GET',
    path: '/reports/usage.csv',
    group: 'usage',
    summary: 'Usage as CSV, one row per call',
    description:
      'Columns: run_id, workflow_id, status, started_at, ended_at, duration_seconds, billed_minutes, cost_usd.',
    tags: ['Usage and reports'],
    request: { query: UsageCsvQuery },
    responses: { 200: { description: 'CSV', contentType: 'text/csv' }, ...BAD_REQUEST, ...UNAUTHORIZED, ...VALIDATION },
  }),
};
