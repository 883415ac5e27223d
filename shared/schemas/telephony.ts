import * as z from 'zod';
import { Timestamp } from './common.ts';
import { E164PhoneNumber } from './phone-number.ts';
import { MAX_ID_CHARS, MAX_PHONE_CHARS } from './bounds.ts';

export const TelephonyProviderParam = z.object({
  provider: z.enum(['twilio', 'telnyx']).openapi({ description: 'The provider that sent the callback.' }),
});

export const TwilioCredentials = z.object({
  provider: z.literal('twilio'),
  account_sid: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'a Twilio Account SID: AC followed by 32 hex digits')
    .openapi({ maxLength: 34, example: 'AC0123456789abcdef0123456789abcdef' }),
  auth_token: z.string().min(16).max(128).openapi({
    description: "The account's auth token; it also verifies Twilio's webhook signatures. Never returned.",
  }),
});

export const TelnyxCredentials = z.object({
  provider: z.literal('telnyx'),
  api_key: z.string().min(10).max(256).openapi({ description: 'A Telnyx API v2 key. Never returned.' }),
  public_key: z
    .string()
    .max(44)
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'the base64 Ed25519 public key of the Telnyx account (44 characters)')
    .openapi({ description: "The account's webhook signing public key (Ed25519, base64)." }),
  connection_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ description: 'The Call Control application calls are placed on.' }),
});

/** A provider account: the platform's own (a secret of the stack) or an organization's. */
export const TelephonyCredentials = z.discriminatedUnion('provider', [TwilioCredentials, TelnyxCredentials]);
export type TelephonyCredentials = z.infer<typeof TelephonyCredentials>;

export const MAX_CALLS_PER_SECOND = 100;

export const TelephonyConfigRequest = z
  .object({
    credentials: TelephonyCredentials,
    caller_id: E164PhoneNumber.openapi({
      description: 'The number calls show; the account must own it (checked with the provider).',
    }),
    calls_per_second: z.number().positive().max(MAX_CALLS_PER_SECOND).default(1).openapi({
      description:
        "The account's outbound call rate limit at the provider (Twilio's default is 1). Calls are paced to stay under it.",
    }),
  })
  .openapi('TelephonyConfigRequest');

export const TelephonyConfigResponse = z
  .object({
    provider: z.enum(['twilio', 'telnyx']),
    account_id: z
      .string()
      .max(MAX_ID_CHARS)
      .openapi({ description: 'The Twilio Account SID or the Telnyx connection id. Secrets are never returned.' }),
    caller_id: z.string().max(MAX_PHONE_CHARS),
    calls_per_second: z.number(),
    updated_at: Timestamp,
  })
  .openapi('TelephonyConfig');
