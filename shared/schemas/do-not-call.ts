import * as z from 'zod';
import { Timestamp } from './common.ts';
import { pageOf } from './pagination.ts';
import { E164PhoneNumber } from './phone-number.ts';
import { MAX_PHONE_CHARS } from './bounds.ts';

export const DoNotCallEntry = z
  .object({ phone_number: z.string().max(MAX_PHONE_CHARS).openapi({ example: '+48601234567' }), created_at: Timestamp })
  .openapi('DoNotCallEntry');

export const AddDoNotCallRequest = z.object({ phone_number: E164PhoneNumber }).openapi('AddDoNotCallRequest');

export const DoNotCallPage = pageOf(DoNotCallEntry, 'DoNotCallPage');

export const DoNotCallNumberParam = z.object({ phone_number: E164PhoneNumber });
