import * as z from 'zod';
import { NUMBER_TYPES } from '../domain/number-pricing.ts';
import { nameText, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { E164PhoneNumber } from './phone-number.ts';
import {
  documentedInt,
  MAX_ID_CHARS,
  MAX_NAME_CHARS,
  MAX_PHONE_CHARS,
  MAX_STORED_CHARS,
  MAX_STORED_ITEMS,
} from './bounds.ts';

export const NUMBER_STATUSES = ['active', 'pending', 'rejected', 'suspended'] as const;

export const PhoneNumber = z
  .object({
    id: documentedInt(z.int()),
    phone_number: z.string().max(MAX_PHONE_CHARS),
    provider: z.string().max(MAX_ID_CHARS),
    status: z.enum(NUMBER_STATUSES).openapi({
      description:
        '`active`; `pending` (Polish mobile awaiting regulatory review: owned, assignable, no traffic, not renewed); `rejected` (review refused, first month refunded); `suspended` (renewal could not be charged).',
    }),
    country_code: z.string().max(8),
    capabilities: z
      .array(z.string().max(MAX_ID_CHARS))
      .max(MAX_STORED_ITEMS)
      .openapi({
        description:
          'What the number can do as the provider reports it (`voice`, `sms`, `mms`, `fax`): its purchase answer (Twilio), else its listing when it was bought (Telnyx). A number without `sms` sends no texts (`send_sms` refused: `sender_cannot_text`).',
        example: ['voice', 'sms'],
      }),
    friendly_name: z.string().max(255),
    organization_id: documentedInt(z.int()),
    workflow_id: documentedInt(z.int()).nullable(),
    workflow_name: z.string().max(MAX_NAME_CHARS).nullable(),
    outbound_workflows: z
      .array(z.object({ workflow_id: documentedInt(z.int()), workflow_name: z.string().max(MAX_NAME_CHARS) }))
      .max(MAX_STORED_ITEMS)
      .openapi({ description: 'Agents that dial out from this number.' }),
    monthly_cost_usd: z.number(),
    monthly_cost_pln: z.number(),
    provider_number_id: z.string().max(MAX_ID_CHARS).nullable(),
    purchased_at: Timestamp,
    assigned_at: Timestamp.nullable(),
    created_at: Timestamp,
    order_id: documentedInt(z.int()).nullable().openapi({
      description: "The platform's order number of the purchase (a number bought before orders were numbered: null).",
    }),
    order_status: z.string().max(MAX_ID_CHARS).openapi({
      description:
        "`completed`, or `in_review` while the provider reviews a regulated number's subscriber (Twilio's bundle, Telnyx's number order with its requirement group), `rejected` when it refused.",
    }),
    order_status_reason: z.string().max(MAX_STORED_CHARS).nullable().openapi({
      description: "While in review, what it waits for; when rejected, the provider's (or operator's) reason.",
    }),
    outbound_commitment_until: Timestamp.nullable().openapi({
      description:
        'The end of the month already paid for, from the purchase (or, for a regulated number, from its approval): the number is held and carries traffic until then. Null while pending or rejected.',
    }),
  })
  .openapi('PhoneNumber');

export const EndUser = z
  .object({
    name: nameText(z.string().min(1).max(255)),
    address: z.string().min(1).max(500),
    document_type: z.enum(['id_card', 'passport', 'company_registration']),
    document_number: z.string().min(1).max(64),
    document_id: documentedInt(z.int().gte(1)).openapi({
      description:
        "The scan of the document (`POST /phone-numbers/documents`: PDF, JPEG or PNG), sent with the data to the provider's regulatory review.",
      example: 12,
    }),
  })
  .openapi('EndUser', {
    description:
      "The subscriber's data Polish regulation requires for a mobile number: a person (`id_card`, `passport`: `name` is given names then family name) or a company (`company_registration`: `name` is the company's), with the scan of the document.",
  });

export const NumberDocument = z
  .object({
    id: documentedInt(z.int()),
    organization_id: documentedInt(z.int()),
    file_name: z.string().max(255),
    content_type: z.enum(['application/pdf', 'image/jpeg', 'image/png']),
    size_bytes: documentedInt(z.int()),
    created_at: Timestamp,
  })
  .openapi('NumberDocument', {
    description:
      "An uploaded identity document for a regulated number's review; the file is stored encrypted and never served back.",
  });

export const NumberDocumentUpload = z
  .object({
    file: z.string().openapi({
      format: 'binary',
      maxLength: 4 * 1024 * 1024,
      description: 'The scan: PDF, JPEG or PNG (its declared type must match its content), at most 4 MiB.',
    }),
  })
  .openapi('NumberDocumentUpload');

export const NumberDocumentIdParam = z.object({ number_document_id: documentedInt(z.int().gte(1)) });

export const PurchaseNumberRequest = z
  .object({
    phone_number: E164PhoneNumber,
    country_code: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .openapi({ maxLength: 2 }),
    number_type: z.enum(NUMBER_TYPES),
    end_user_id: documentedInt(z.int().gte(1))
      .nullable()
      .optional()
      .openapi({
        description:
          'Your own identifier of the subscriber (the end user in your system) the number is bought for; stored with the number and sent with the ' +
          "regulatory review, so a review can be traced back to your customer: it leads the Twilio bundle's and EndUser's friendly names " +
          '(`end user 1042: …`) and is part of the Telnyx `customer_reference` (`number-<organization>-<number>-end-user-1042`), and ' +
          '`number.approved` / `number.rejected` carry it. Required only for numbers that need a regulatory review (Polish mobile numbers); optional otherwise.',
        example: 1042,
      }),
    consent: z.boolean().default(false),
    end_user: EndUser.optional(),
    friendly_name: nameText(z.string().max(255)).optional(),
  })
  .openapi('PurchaseNumberRequest');

export const MarketplaceQuery = z.object({
  country_code: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .openapi({ maxLength: 2 }),
  number_type: z.enum(NUMBER_TYPES).optional(),
});

export const MarketplaceNumber = z
  .object({
    phone_number: z.string().max(MAX_PHONE_CHARS),
    country_code: z.string().max(8),
    number_type: z.string().max(MAX_ID_CHARS),
    capabilities: z
      .array(z.string().max(MAX_ID_CHARS))
      .max(MAX_STORED_ITEMS)
      .openapi({
        description:
          "What the number can do, as the provider lists it (Twilio's `capabilities`, Telnyx's `features`): a landline is often `voice` only.",
        example: ['voice', 'sms'],
      }),
    monthly_cost_usd: z.number(),
    monthly_cost_pln: z.number(),
    requires_regulatory_review: z.boolean(),
  })
  .openapi('MarketplaceNumber');

export const MarketplaceNumbers = pageOf(MarketplaceNumber, 'MarketplaceNumbers');

export const PhoneNumberPage = pageOf(PhoneNumber, 'PhoneNumberPage');
export const PhoneNumberIdParam = z.object({ phone_number_id: documentedInt(z.int().gte(1)) });
export const AssignNumberRequest = z
  .object({ phone_number_id: documentedInt(z.int().gte(1)), workflow_id: documentedInt(z.int().gte(1)) })
  .openapi('AssignNumberRequest');
export const OutboundNumberRequest = z
  .object({ phone_number_id: documentedInt(z.int().gte(1)).nullable() })
  .openapi('OutboundNumberRequest', { description: '`null` returns the agent to the default caller id.' });
export const OutboundAssignment = z
  .object({
    workflow_id: documentedInt(z.int()),
    workflow_name: z.string().max(MAX_NAME_CHARS),
    phone_number_id: documentedInt(z.int()).nullable(),
    phone_number: z.string().max(MAX_PHONE_CHARS).nullable(),
  })
  .openapi('OutboundAssignment');
export const OutboundAgents = pageOf(OutboundAssignment, 'OutboundAgents');
export const NumberSetup = z
  .object({
    show_phone_number_step: z.boolean().openapi({ description: 'Paid plan and no number yet.' }),
    plan: z.enum(['free', 'paid']),
    phone_number_count: documentedInt(z.int()),
    agent_count: documentedInt(z.int()),
    balance_usd: z.number(),
    mobile_number_price_usd: z.number(),
    can_afford_mobile_number: z.boolean(),
  })
  .openapi('NumberSetup');
