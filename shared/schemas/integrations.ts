import * as z from 'zod';
import { Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ANSWER_CHARS, MAX_ID_CHARS, MAX_URL_CHARS } from './bounds.ts';
import {
  CODE_CHALLENGE_PATTERN,
  CODE_VERIFIER_PATTERN,
  CONSENT_SECONDS,
  CONSENT_STATE_PATTERN,
} from '../domain/oauth-consent.ts';

export const CONNECTION_PROVIDERS = ['google-sheets'] as const;

export const CreateConnectionRequest = z
  .object({
    provider: z.enum(CONNECTION_PROVIDERS),
    authorization_code: z
      .string()
      .min(1)
      .max(4096)
      .openapi({ description: "The code the provider's OAuth consent screen returned to `redirect_uri`." }),
    redirect_uri: z.url().max(2048).openapi({ description: 'The redirect URI used for the consent (must match).' }),
    state: z.string().max(43).regex(CONSENT_STATE_PATTERN).optional().openapi({
      description:
        'The `state` of `POST /integrations/consents` that the provider returned with the code. With it, the consent must belong to this organization, be unused (single use) and unexpired, and `redirect_uri` must be the one it started with.',
    }),
    code_verifier: z.string().max(128).regex(CODE_VERIFIER_PATTERN).optional().openapi({
      description:
        'The PKCE verifier (RFC 7636) whose S256 challenge started the consent; required with `state`, and passed on to the provider with the code.',
    }),
  })
  .openapi('CreateConnectionRequest');

export const StartConsentRequest = z
  .object({
    provider: z.enum(CONNECTION_PROVIDERS),
    redirect_uri: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .openapi({
        description:
          "Where the provider sends the browser back with `code` and `state` (the console's own address): it must be registered with the platform's OAuth client, and the connection is completed with the same value.",
      }),
    code_challenge: z.string().max(43).regex(CODE_CHALLENGE_PATTERN).openapi({
      description:
        'The PKCE challenge: base64url(SHA-256(code_verifier)), 43 characters. The verifier stays with the caller.',
    }),
    code_challenge_method: z.literal('S256').default('S256'),
  })
  .openapi('StartConsentRequest');

export const Consent = z
  .object({
    authorization_url: z.string().max(MAX_URL_CHARS).openapi({
      description:
        "The provider's consent screen (the platform's client id, offline access, PKCE): send the browser there.",
    }),
    state: z.string().max(MAX_ID_CHARS).openapi({
      description: 'Bound to this organization, single use; give it back with the code to `POST /integrations`.',
    }),
    expires_at: Timestamp.openapi({
      description: `The consent must be completed before this (${CONSENT_SECONDS / 60} minutes).`,
    }),
  })
  .openapi('Consent');

export const Connection = z
  .object({
    id: z.string().max(MAX_ID_CHARS).openapi({ example: 'conn_Ab3dE6gH9jK2mN5p' }),
    provider: z.string().max(MAX_ID_CHARS),
    account_email: z.string().max(320),
    created_at: Timestamp,
  })
  .openapi('Connection', { description: 'The OAuth refresh token is stored encrypted and never returned.' });

export const ConnectionList = pageOf(Connection, 'ConnectionList');

export const ConnectionIdParam = z.object({
  connection_id: z
    .string()
    .regex(/^conn_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 21 }),
});

export const PickerToken = z
  .object({
    access_token: z.string().max(MAX_ANSWER_CHARS),
    account_email: z.string().max(320),
    expires_in: documentedInt(z.int()).openapi({ description: 'Seconds the token stays valid (at most 3600).' }),
    picker_script_url: z.string().max(MAX_URL_CHARS).openapi({
      description:
        "The provider's Picker loader (`https://apis.google.com/js/api.js`), to open the file picker with the token.",
    }),
    app_id: z.string().max(MAX_ID_CHARS).nullable().openapi({
      description: "The Picker's app id (the Google Cloud project number of the platform's OAuth client).",
    }),
    developer_key: z
      .string()
      .max(MAX_ID_CHARS * 2)
      .nullable()
      .openapi({
        description:
          "The platform's browser API key for the Picker, when the operator configured one (`pickerApiKey`).",
      }),
  })
  .openapi('PickerToken');
