import * as z from 'zod';
import { Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ANSWER_CHARS, MAX_ID_CHARS } from './bounds.ts';

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
  })
  .openapi('CreateConnectionRequest');

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
  })
  .openapi('PickerToken');
