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
    sent_by: z.enum(['agent', 'api']).nullable().openapi({
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

const E164 = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'an E.164 number')
  .openapi({ maxLength: 16, example: '+48601234561' });

export const SmsTemplate = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _ (the model names the template by it)')
      .openapi({ maxLength: 40, example: 'booking_confirmation' }),
    body: z.string().min(1).max(640).openapi({
      description:
        'The text; `{{initial_context.<key>}}` and `{{gathered_context.<key>}}` (what the agent gathered so far) are filled in when it is sent.',
      example: 'Hi {{initial_context.name}}, your visit is booked for {{gathered_context.slot}}.',
    }),
    description: z.string().min(1).max(500).openapi({
      description: 'When to send it; the model reads it.',
      example: 'Once the caller has agreed to a time.',
    }),
  })
  .openapi('SmsTemplate');

/** Text messages during calls (`workflow_configurations.sms`): the `send_sms` tool the model may use. */
export const SmsPlan = z
  .strictObject({
    enabled: z.boolean().default(true).openapi({ description: 'Offer the model the `send_sms` tool (default true).' }),
    templates: z.array(SmsTemplate).max(10).default([]),
    allow_free_text: z.boolean().default(false).openapi({
      description: 'The model may write a text of its own (up to 640 characters), not only a template.',
    }),
    max_per_call: documentedInt(z.int().min(1).max(10)).default(3).openapi({
      description: 'Texts one call may send (the agent and the live-control API together).',
    }),
    destination: E164.optional().openapi({
      description: 'Where texts go; default: the caller (the number called, or the number that called).',
    }),
    from_number: E164.optional().openapi({
      description:
        "The sending number: one of the organization's numbers with the `sms` capability. Default: the call's own number (the agent's outbound number, or the number called on an inbound call).",
    }),
  })
  .superRefine((plan, context) => {
    if (plan.enabled && !plan.allow_free_text && plan.templates.length === 0)
      context.addIssue({ code: 'custom', path: ['templates'], message: 'give a template, or allow free text' });
    const names = plan.templates.map((template) => template.name);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index)
        context.addIssue({ code: 'custom', path: ['templates', index, 'name'], message: `${name} is named twice` });
    });
  })
  .openapi('SmsPlan', {
    description:
      "Text messages during calls: the model gets a `send_sms` tool (a template by name, or free text when allowed), and the live-control API a `send_sms` command. Texts go from the call's number to the caller (or `destination`) through the provider's messaging API; the same rules as calls apply (a number on the Do-not-call list gets none, 08:00-21:00 in the destination's time zones, the organization's rate of 30 texts a minute), and the model is told why a text was refused. Each text is on the run's `sms` with its delivery status, in its logs and transcript, in `call.completed` and in the cost.",
    example: {
      templates: [
        {
          name: 'booking_confirmation',
          body: 'Hi {{initial_context.name}}, your visit is booked for {{gathered_context.slot}}. Reply here with any question.',
          description: 'Once the caller has agreed to a time.',
        },
      ],
      allow_free_text: false,
      max_per_call: 2,
    },
  });
export type SmsPlan = z.infer<typeof SmsPlan>;
