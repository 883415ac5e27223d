import { parsePhoneNumber } from './phone-numbers.ts';

/** Monthly price list (USD) by country and number type; what the marketplace sells. */
export const MONTHLY_PRICES_USD: Record<string, Partial<Record<NumberType, number>>> = {
  PL: { mobile: 4.0, local: 2.0 },
  US: { local: 1.15, toll_free: 2.15 },
  GB: { local: 1.5, mobile: 3.0 },
};

export const NUMBER_TYPES = ['local', 'mobile', 'toll_free'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

/** Fixed conversion for the PLN figure the spec's Phone number carries (documented, not a live rate). */
export const USD_TO_PLN = 4.0;

export const priceOf = (country: string, type: NumberType): number | undefined => MONTHLY_PRICES_USD[country]?.[type];
export const inPln = (usd: number): number => Math.round(usd * USD_TO_PLN * 100) / 100;

/** Polish mobile numbers need the subscriber's data and consent and a regulatory review. */
export function needsRegulatoryReview(e164: string): boolean {
  const parsed = parsePhoneNumber(e164);
  return parsed?.country === 'PL' && (parsed.type === 'MOBILE' || parsed.type === 'FIXED_LINE_OR_MOBILE');
}

/** The number one month after `from`, on the same day of the month where it exists. */
export function addMonth(from: Date): Date {
  const next = new Date(from);
  next.setUTCMonth(next.getUTCMonth() + 1);
  if (next.getUTCDate() !== from.getUTCDate()) next.setUTCDate(0);
  return next;
}
