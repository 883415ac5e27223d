import * as z from 'zod';
import { CAMPAIGN_STATES } from '../domain/campaign-states.ts';
import { isValidTimeZone } from '../domain/time-windows.ts';
import { JsonObject, nameText, Timestamp, whenFieldsValid } from './common.ts';
import { guardedUrlDescription, withGuardedUrlKeys } from './outbound-url.ts';
import { pageOf } from './pagination.ts';
import {
  documentedInt,
  MAX_HEADER_CHARS,
  MAX_ID_CHARS,
  MAX_NAME_CHARS,
  MAX_REQUEST_CHARS,
  MAX_STORED_CHARS,
} from './bounds.ts';

/** Contacts of a `manual` campaign per request (a larger list belongs in a CSV). */
export const MAX_MANUAL_CONTACTS = 10_000;

/** The hosted-spreadsheet source is `google-sheet` (the spec's `<provider>-sheet`). */
export const SOURCE_TYPE_PATTERN = /^(google-sheet|csv|manual|calendar)$/;

const HHMM = z
  .string()
  .openapi({ maxLength: 5 })
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/);

export const ManualContact = z
  .object({
    phone_number: z.string().openapi({ maxLength: MAX_REQUEST_CHARS }).min(1),
    first_name: nameText(z.string().openapi({ maxLength: MAX_REQUEST_CHARS })).default(''),
    last_name: nameText(z.string().openapi({ maxLength: MAX_REQUEST_CHARS })).default(''),
    timezone: z.string().openapi({ maxLength: MAX_REQUEST_CHARS }).nullable().optional().openapi({
      description:
        'IANA zone of this contact; overrides the zones derived from the number for the legal calling hours.',
    }),
  })
  .openapi('ManualContact');

export const RetryConfig = z
  .object({
    enabled: z.boolean().default(true),
    max_retries: documentedInt(z.int().gte(0).lte(5)).default(1),
    retry_delay_seconds: documentedInt(z.int().gte(60).lte(86400)).default(3600),
    retry_on_busy: z.boolean().default(true),
    retry_on_no_answer: z.boolean().default(true),
    retry_on_voicemail: z.boolean().default(false),
    smart_timing: z.boolean().default(false).openapi({
      description:
        "Retry at another time of day: a retry that would fall within 3 hours (local time) of the failed attempt's time of day moves 4 hours later, then into the next allowed window.",
    }),
  })
  .openapi('RetryConfig');
export type RetryConfig = z.output<typeof RetryConfig>;

export const CallingWindowRequest = z
  .object({
    timezone: z
      .string()
      .default('Europe/Warsaw')
      .refine(isValidTimeZone, { message: 'timezone must be an IANA time zone name, e.g. Europe/Warsaw' })
      // Only a known zone passes; the longest IANA names are about 32 characters.
      .openapi({ maxLength: 64 }),
    days: z
      .array(documentedInt(z.int().gte(1).lte(7)))
      .min(1)
      .max(7)
      .default([1, 2, 3, 4, 5])
      .openapi({
        description: 'ISO weekdays: 1 = Monday … 7 = Sunday; at least one (a campaign without days could never dial).',
      }),
    start: HHMM.default('09:00'),
    end: HHMM.default('17:00'),
  })
  .refine((window) => window.start < window.end, {
    message: 'start must be earlier than end',
    path: [],
    when: whenFieldsValid,
  })
  .openapi('CallingWindowRequest', {
    description: 'Hours the campaign may dial, in its own time zone (`start` inclusive, `end` exclusive).',
  });
export type CallingWindow = z.output<typeof CallingWindowRequest>;

export const CreateCampaignRequest = z
  .object({
    name: nameText(z.string().min(1).max(255)),
    goal: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .openapi({
        description:
          "What the campaign's calls are for. The agent reads it (the call variable `campaign_goal`: in the call details of its prompt, and " +
          "`{{initial_context.campaign_goal}}` in its texts), and an agent's post-call analysis judges each call's success against it.",
      }),
    workflow_id: z
      .union([
        documentedInt(z.int()),
        z
          .string()
          .regex(/^agent_[A-Za-z0-9]{20}$/)
          .openapi({ maxLength: 26 }),
      ])
      .openapi({
        description:
          "The agent: its integer id or its public id (`agent_` + 20 letters or digits), as in the calls' `{agent_id}`. Responses give the integer.",
        example: 42,
      }),
    source_type: z.string().regex(SOURCE_TYPE_PATTERN).openapi({ maxLength: 12 }),
    source_id: z.string().openapi({ maxLength: MAX_REQUEST_CHARS }).default(''),
    manual_contacts: z
      .array(ManualContact)
      .max(MAX_MANUAL_CONTACTS)
      .nullable()
      .optional()
      .openapi({
        description: `At most ${MAX_MANUAL_CONTACTS.toLocaleString('en')} per request; larger lists are sent as CSV (\`source_type: csv\`).`,
      }),
    source_config: withGuardedUrlKeys(
      JsonObject.nullable()
        .optional()
        .openapi({
          description:
            'Per source: `csv`: `csv_text` (RFC 4180, header row), optional `phone_column`; `google-sheet`: `connection_id`, optional `range` ' +
            '(default A:Z) and `phone_column`; `calendar`: `ics_url` or `ics_text`; `manual`: none. ' +
            guardedUrlDescription('`ics_url`:', '10 s and 5 MiB per read'),
        }),
      ['ics_url'],
    ),
    retry_config: RetryConfig.nullable()
      .optional()
      .openapi({
        description:
          'Omitted or null: the default policy applies, one retry one hour after a busy or unanswered call (not after voicemail), so a contact ' +
          'may be called twice. Send `{"enabled": false}` to call each contact once.',
      }),
    source_refresh_minutes: documentedInt(z.int().gte(5).lte(10080))
      .nullable()
      .optional()
      .openapi({
        description:
          'How often the source is read again for new rows (minutes). Only for sources that live outside the request: ' +
          '`google-sheet`, and `calendar` with `ics_url`. A `csv`, `manual` or `calendar` with `ics_text` source is read once; ' +
          'giving it a refresh period is a 422.',
      }),
    scheduled_start_at: z.iso
      .datetime({ offset: true })
      .openapi({ maxLength: MAX_REQUEST_CHARS })
      .nullable()
      .optional(),
    calling_window: CallingWindowRequest.nullable().optional(),
  })
  .openapi('CampaignCreateRequest');
export type CreateCampaignRequest = z.output<typeof CreateCampaignRequest>;

export const CreateCampaignHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description:
      'Optional. A retried request with the same key returns the first response and creates nothing again (kept 24 h).',
  }),
  'X-API-Key': z.string().openapi({ maxLength: MAX_HEADER_CHARS }).optional().openapi({
    description: 'The API key (the security scheme `APIKeyHeader`), declared here too as in the earlier service.',
  }),
  authorization: z.string().openapi({ maxLength: MAX_HEADER_CHARS }).optional().openapi({
    description: 'Accepted for compatibility with earlier clients and ignored; authenticate with `X-API-Key`.',
  }),
});

export const Campaign = z
  .object({
    id: documentedInt(z.int()),
    name: z.string().max(MAX_NAME_CHARS),
    workflow_id: documentedInt(z.int()),
    workflow_name: z.string().max(MAX_NAME_CHARS),
    state: z.enum(CAMPAIGN_STATES),
    source_type: z.string().max(MAX_ID_CHARS),
    source_id: z.string().max(MAX_STORED_CHARS),
    total_rows: documentedInt(z.int()).nullable(),
    processed_rows: documentedInt(z.int()).openapi({
      description: 'Contacts with a final outcome (completed, busy, no answer, voicemail, failed, skipped).',
    }),
    failed_rows: documentedInt(z.int()).openapi({
      description: 'Contacts that could not be called: invalid number, Do-not-call, or a technical failure.',
    }),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
    goal: z.string().max(64).nullable().optional().openapi({
      description:
        "What the campaign's calls are for: given to the agent (`campaign_goal`) and to the post-call analysis.",
    }),
    source_config: JsonObject.nullable().optional(),
    source_refresh_minutes: documentedInt(z.int()).nullable().optional(),
    source_last_synced_at: Timestamp.nullable().optional(),
    source_sync_error: z.string().max(MAX_STORED_CHARS).nullable().optional(),
    import_error: z.string().max(MAX_STORED_CHARS).nullable().optional().openapi({
      description: 'Why the background import failed (state `import_failed`; create the campaign again), else null.',
    }),
    scheduled_start_at: Timestamp.nullable().optional(),
    calling_window: z
      .object({
        timezone: z.string().max(64),
        days: z.array(documentedInt(z.int())).max(7),
        start: z.string().max(5),
        end: z.string().max(5),
      })
      .nullable()
      .optional(),
    retry_config: RetryConfig.nullable().optional(),
  })
  .openapi('Campaign');
export type Campaign = z.output<typeof Campaign>;

export const CampaignPage = pageOf(Campaign, 'CampaignPage');

export const CampaignIdParam = z.object({ campaign_id: documentedInt(z.int().gte(1)) });

export const ReportRow = z
  .object({
    row: documentedInt(z.int()),
    phone_number: z.string().max(MAX_STORED_CHARS),
    first_name: z.string().max(MAX_STORED_CHARS),
    last_name: z.string().max(MAX_STORED_CHARS),
    status: z.string().max(MAX_ID_CHARS).openapi({
      description:
        '`pending`, `dialing`, `retry_scheduled`, or final: `completed`, `busy`, `no_answer`, `voicemail`, `failed`, `do_not_call`, `invalid`.',
    }),
    attempts: documentedInt(z.int()),
    last_outcome: z.string().max(MAX_STORED_CHARS).nullable(),
    call_disposition: z.string().max(MAX_STORED_CHARS).nullable().openapi({
      description:
        "The disposition the agent chose on the contact's latest call (`run_id`); null once that call is deleted (`run_erased_at`).",
    }),
    run_id: documentedInt(z.int()).nullable().openapi({
      description: "The contact's latest call; it stays (as in the billing records) after the call is deleted.",
    }),
    next_attempt_at: Timestamp.nullable(),
    last_attempt_at: Timestamp.nullable(),
    error: z.string().max(MAX_STORED_CHARS).nullable(),
    analysis_summary: z.string().max(MAX_STORED_CHARS).nullable().openapi({
      description:
        "The post-call analysis summary of the contact's latest call (`run_id`), once ready; null without one.",
    }),
    analysis_successful: z.boolean().nullable().openapi({
      description: "The success evaluation of the contact's latest call, when the agent has success criteria.",
    }),
    analysis_data: JsonObject.nullable().openapi({
      description: 'The structured data of its analysis (a JSON text in the CSV report).',
    }),
    run_erased_at: Timestamp.nullable().openapi({
      description:
        "When the contact's latest call (`run_id`) was deleted (`DELETE /agents/{agent_id}/conversations/{conversation_id}`). " +
        'Its disposition and post-call analysis were erased with it: null here, `erased` in those cells of the CSV report. ' +
        'Status, attempts, `last_outcome`, `run_id` and the attempt times stay: the campaign counts and retries them.',
    }),
  })
  .openapi('CampaignReportRow');

export const ReportPage = pageOf(ReportRow, 'CampaignReportPage');
