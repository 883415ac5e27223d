import { describe, expect, it } from 'vitest';
import { addMonth, inPln, needsRegulatoryReview, priceOf } from '../../shared/domain/number-pricing.ts';

describe('number pricing and review rules', () => {
  it.each([
    ['PL', 'mobile', 4],
    ['PL', 'local', 2],
    ['US', 'toll_free', 2.15],
    ['US', 'mobile', undefined],
    ['DE', 'local', undefined],
  ] as const)('%s %s costs %s USD a month', (country, type, price) => {
    expect(priceOf(country, type)).toBe(price);
  });

  it.each([
    ['+48601234567', true],
    ['+48221234567', false],
    ['+12125550101', false],
    ['+447700900123', false],
  ])('%s needs a regulatory review: %s', (number, review) => {
    expect(needsRegulatoryReview(number)).toBe(review);
  });

  it.each([
    ['2026-01-15T10:00:00.000Z', '2026-02-15T10:00:00.000Z'],
    ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'],
    ['2026-12-31T00:00:00.000Z', '2027-01-31T00:00:00.000Z'],
  ])('a month after %s is %s', (from, expected) => {
    expect(addMonth(new Date(from)).toISOString()).toBe(expected);
  });

  it('converts to PLN at the documented rate', () => {
    expect(inPln(1.15)).toBe(4.6);
  });
});
