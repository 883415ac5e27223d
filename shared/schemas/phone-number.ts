import * as z from 'zod';
import { parsePhoneNumber } from '../domain/phone-numbers.ts';
import './common.ts';

/**
 * A phone number in E.164 (`+` and country code). Spaces, dashes, dots and brackets are accepted
 * and dropped; the parsed value is the normalised E.164 string. Anything that is not a valid number
 * for its country is a 422 `value_error`.
 */
export const E164PhoneNumber = z
  .string()
  .max(32)
  .transform((raw, context) => {
    const parsed = parsePhoneNumber(raw);
    if (!parsed) {
      context.addIssue({
        code: 'custom',
        message: 'phone_number must be a valid phone number in E.164 format, e.g. +48601234567',
      });
      return z.NEVER;
    }
    return parsed.e164;
  })
  .openapi({
    type: 'string',
    maxLength: 32,
    description: 'Phone number in E.164, e.g. `+48601234567`.',
    example: '+48601234567',
  });
