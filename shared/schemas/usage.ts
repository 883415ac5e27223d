import * as z from 'zod';
import { Timestamp } from './common.ts';
import { MAX_PAGE_SIZE, PaginationQuery } from './pagination.ts';
import { documentedInt, MAX_ID_CHARS, MAX_NAME_CHARS, MAX_ANSWER_CHARS, MAX_HEADER_CHARS } from './bounds.ts';

const Instant = z
  .union([
    z.iso.datetime({ offset: true }).openapi({ maxLength: MAX_HEADER_CHARS }),
    z.iso.date().openapi({ maxLength: 10 }),
  ])
  .openapi({ description: 'ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with an offset.' });

export const UsageQuery = z.object({
  from: Instant.optional().openapi({
    description: 'Start (inclusive); default: the first day of the current month (UTC).',
  }),
  to: Instant.optional().openapi({ description: 'End (exclusive); default: now.' }),
  group_by: z.enum(['day', 'month']).default('day'),
});

const Figures = {
  calls: documentedInt(z.int()),
  answered_calls: documentedInt(z.int()),
  minutes: documentedInt(z.int()).openapi({ description: 'Billed minutes: each call rounded up.' }),
  cost_usd: z.number().openapi({ description: 'Everything billed: calls and the texts they sent.' }),
  sms_messages: documentedInt(z.int()).openapi({
    description:
      "Text messages the calls sent (the agent's `send_sms`, the control command); texts received are not billed.",
  }),
  sms_segments: documentedInt(z.int()).openapi({
    description: 'Their segments, as the provider counted them (each billed).',
  }),
  sms_usd: z.number().openapi({ description: 'What the texts cost (0.0079 USD a segment): part of `cost_usd`.' }),
};

export const UsageReport = z
  .object({
    from: Timestamp,
    to: Timestamp,
    group_by: z.enum(['day', 'month']),
    totals: z.object(Figures),
    periods: z.array(z.object({ period: z.string().max(MAX_ID_CHARS), ...Figures })).max(MAX_ANSWER_CHARS),
    agents: z
      .array(
        z.object({ workflow_id: documentedInt(z.int()), workflow_name: z.string().max(MAX_NAME_CHARS), ...Figures }),
      )
      .max(MAX_ANSWER_CHARS),
  })
  .openapi('UsageReport', { description: 'From the billing records, which survive run deletion.' });

export const UsageCsvQuery = UsageQuery.omit({ group_by: true });

export const CurrentPeriodUsage = z
  .object({
    period_start: Timestamp.openapi({ description: 'First instant of the current calendar month (UTC).' }),
    period_end: Timestamp.openapi({ description: 'First instant of the next month (exclusive).' }),
    as_of: Timestamp.openapi({ description: 'The figures cover calls that ended before this instant (now).' }),
    ...Figures,
  })
  .openapi('CurrentPeriodUsage', {
    description: 'The current billing period (calendar month, UTC) so far, from the billing records.',
  });

export const DailyUsage = z
  .object({
    from: Timestamp,
    to: Timestamp,
    days: z
      .array(z.object({ date: z.iso.date().openapi({ maxLength: 10, example: '2026-11-23' }), ...Figures }))
      .max(MAX_ANSWER_CHARS)
      .openapi({ description: 'One item per UTC day of the range, oldest first; days without calls carry zeros.' }),
  })
  .openapi('DailyUsage');

export const BilledRun = z
  .object({
    run_id: documentedInt(z.int()),
    workflow_id: documentedInt(z.int()),
    status: z
      .string()
      .max(MAX_ID_CHARS)
      .openapi({ description: 'Final status of the run: `completed`, `busy`, `no_answer`, `voicemail` or `failed`.' }),
    started_at: Timestamp,
    ended_at: Timestamp,
    duration_seconds: documentedInt(z.int()),
    billed_minutes: documentedInt(z.int()).openapi({ description: 'The duration rounded up to whole minutes.' }),
    cost_usd: z.number(),
    test_run_id: documentedInt(z.int()).optional().openapi({
      description:
        "Present on an agent test's conversation: the test run it belongs to (it is not listed with the agent's conversations).",
    }),
    sms_messages: documentedInt(z.int()).openapi({ description: 'Text messages the call sent.' }),
    sms_segments: documentedInt(z.int()),
    sms_usd: z.number().openapi({ description: 'Their cost: part of `cost_usd`.' }),
  })
  .openapi('BilledRun', { description: "A billing record of one call; it survives the run's deletion." });

export const BilledRunPage = z
  .object({
    from: Timestamp,
    to: Timestamp,
    items: z.array(BilledRun).max(MAX_PAGE_SIZE),
    page: documentedInt(z.int()),
    limit: documentedInt(z.int()),
    total_count: documentedInt(z.int()),
    total_pages: documentedInt(z.int()),
  })
  .openapi('BilledRunPage');

export const BilledRunsQuery = UsageCsvQuery.extend(PaginationQuery.shape);
