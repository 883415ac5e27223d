import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js/max';

/** E.164: a plus sign, then up to 15 digits, the first not zero. */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/;

export interface ParsedPhoneNumber {
  e164: string;
  /** ISO 3166-1 alpha-2 country, when the number belongs to one. */
  country?: string;
  type?: string;
}

function parseValid(raw: string): PhoneNumber | undefined {
  const parsed = parsePhoneNumberFromString(raw.trim());
  return parsed?.isValid() ? parsed : undefined;
}

/**
 * A dialable number in E.164, or undefined. Separators people type (spaces, dashes, dots,
 * brackets) are accepted and dropped; a national number without `+` is not, since its country
 * would be a guess.
 */
export function parsePhoneNumber(raw: string): ParsedPhoneNumber | undefined {
  if (!raw.trim().startsWith('+')) return undefined;
  const parsed = parseValid(raw);
  if (!parsed) return undefined;
  return { e164: parsed.number, country: parsed.country, type: parsed.getType() };
}

/**
 * Every IANA zone the number may be in: one for most numbers; several where the country spans
 * zones and the area code does not pin one down (or the number is mobile or toll-free).
 */
export async function phoneNumberTimeZones(e164: string): Promise<string[]> {
  const parsed = parseValid(e164);
  if (!parsed) return [];
  // Loaded on first use: the package and its BSON decoder stay out of functions that only validate
  // numbers. A CommonJS package: its exports object is the default export (also in an esbuild chunk).
  const { timezones } = (await import('libphonenumber-geo-carrier')).default;
  return (await timezones(parsed)) ?? [];
}
