import * as z from 'zod';
import { nameText, Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { MAX_ID_CHARS } from './bounds.ts';

export const ApiKey = z
  .object({
    id: z.string().max(MAX_ID_CHARS).openapi({ example: 'key_Q2x8T1mZ0aB4cD6e' }),
    name: z.string().max(100).openapi({ example: 'CRM integration' }),
    key_prefix: z.string().max(MAX_ID_CHARS).openapi({
      description: 'The key as far as it is not secret (`vap_` and its id part), to tell keys apart.',
      example: 'vap_Q2x8T1mZ0aB4cD6e_…',
    }),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })
  .openapi('ApiKey', { description: 'An API key of the organization. The key itself is shown once, when created.' });

export const CreatedApiKey = ApiKey.extend({
  key: z.string().max(128).openapi({
    description: 'The whole key, for the `X-API-Key` header. Shown only in this response: it is stored hashed.',
    example: 'vap_Q2x8T1mZ0aB4cD6e_8bT3kW9sLq2VxZc7N4mR1pD6fH0jG5aE3yU8oI2w',
  }),
}).openapi('CreatedApiKey');

export const CreateApiKeyRequest = z
  .object({
    name: nameText(z.string().min(1).max(100)).default('API key').openapi({ description: 'What the key is for.' }),
  })
  .openapi('CreateApiKeyRequest');

export const ApiKeyPage = pageOf(ApiKey, 'ApiKeyPage');

export const ApiKeyIdParam = z.object({
  key_id: z
    .string()
    .regex(/^key_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 20 }),
});
