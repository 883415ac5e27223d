import * as z from 'zod';
import { SMS_STATUSES } from '../domain/text-messages.ts';
import { Timestamp } from './common.ts';
import { documentedInt, MAX_ID_CHARS, MAX_STORED_CHARS } from './bounds.ts';

const Number = z.string().max(MAX_ID_CHARS).openapi({ description: 'E.164.' });
const Status = z.enum(SMS_STATUSES).openapi({
  description:
    '`queued` (the provider took it), `sent` (handed to the network), `delivered` (the handset confirmed it), `undelivered` (the network could not deliver it: see `error_code`, `error_reason`), `failed` (the provider refused it), `received` (a text from the caller).',
});

/** A text message of a run: one the agent or the API sent during the call, or one the caller sent. */
export const RunSms = z
  .object({
    id: z.string().max(MAX_ID_CHARS),
    direction: z.enum(['outbound', 'inbound']),
    timestamp: Timestamp.openapi({ description: 'When it was queued (outbound) or received (inbound).' }),
    from: Number,
    to: Number,
    body: z.string().max(MAX_STORED_CHARS),
    status: Status,
    status_history: z
      .array(
        z.object({
          status: Status,
          timestamp: Timestamp,
          error_code: z.string().max(MAX_ID_CHARS).nullable(),
        }),
      )
      .max(16)
      .openapi({ description: "Every status it went through, in order, from the provider's signed status callbacks." }),
    error_code: z.string().max(MAX_ID_CHARS).nullable().openapi({
      description: "The provider's error code of a failed delivery (Twilio `30006`, Telnyx `40001`: a landline).",
    }),
    error_reason: z.string().max(MAX_ID_CHARS).nullable().openapi({
      description:
        '`landline_or_unreachable_carrier`, `unreachable`, `unknown_destination`, `blocked`, `filtered`, `undeliverable`, `rate_limited`, `sender_cannot_text`, `invalid_destination`, `provider_error`; null when nothing went wrong.',
    }),
    segments: documentedInt(z.int()).openapi({
      description:
        'How many segments the provider split it into (160 GSM-7 characters, or 70 others, each; longer texts 153 and 67 a segment).',
    }),
    cost_usd: z.number().openapi({ description: 'What its segments cost (0 for a received text).' }),
    sent_by: z
      .enum(['agent', 'api'])
      .nullable()
      .openapi({
        description: "`agent`: the model's `send_sms` tool; `api`: the live-control command; null for a received text.",
      }),
  })
  .openapi('RunSms', {
    description: 'A text message of the run, with its delivery status as the provider reported it.',
    example: {
      id: 'sms_0mifk2x3aa1b2c3d4',
      direction: 'outbound',
      timestamp: '2026-11-26T10:15:04.120Z',
      from: '+48221234500',
      to: '+48601234561',
      body: 'Your booking is confirmed: Friday 10:00, Dr Nowak. Reply to this number with any question.',
      status: 'delivered',
      status_history: [
        { status: 'queued', timestamp: '2026-11-26T10:15:04.120Z', error_code: null },
        { status: 'sent', timestamp: '2026-11-26T10:15:04.410Z', error_code: null },
        { status: 'delivered', timestamp: '2026-11-26T10:15:05.020Z', error_code: null },
      ],
      error_code: null,
      error_reason: null,
      segments: 1,
      cost_usd: 0.0079,
      sent_by: 'agent',
    },
  });
