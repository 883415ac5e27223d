import * as z from 'zod';
import { Timestamp } from './common.ts';

const Instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).openapi({ description: 'ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with an offset.' });

export const UsageQuery = z.object({
  from: Instant.optional().openapi({ description: 'Start (inclusive); default: the first day of the current month (UTC).' }),
  to: Instant.optional().openapi({ description: 'End (exclusive); default: now.' }),
  group_by: z.enum(['day', 'month']).default('day'),
});

const Figures = { calls: z.int(), answered_calls: z.int(), minutes: z.int().openapi({ description: 'Billed minutes: each call rounded up.' }), cost_usd: z.number() };

export const UsageReport = z
  .object({
    from: Timestamp,
    to: Timestamp,
    group_by: z.enum(['day', 'month']),
    totals: z.object(Figures),
    periods: z.array(z.object({ period: z.string(), ...Figures })),
    agents: z.array(z.object({ workflow_id: z.int(), workflow_name: z.string(), ...Figures })),
  })
  .openapi('UsageReport', { description: 'From the billing records, which survive run deletion.' });

export const UsageCsvQuery = UsageQuery.omit({ group_by: true });
