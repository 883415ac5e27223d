import { describe, expect, it } from 'vitest';
import { decimalAtLeastPattern } from '../../shared/domain/decimal-pattern.ts';

describe('decimalAtLeastPattern', () => {
  it.each([
    [1, ['1', '9', '10', '123456789'], ['0', '']],
    [10, ['10', '11', '99', '100'], ['9', '1', '09']],
    [
      4_600_001,
      ['4600001', '4600010', '4700000', '5000000', '9999999', '10000000', '46000010'],
      ['4600000', '4599999', '999999', '0004600001'],
    ],
    [
      6_000_001,
      ['6000001', '6000010', '7000000', '60000000'],
      ['6000000', '5999999', '600000', '6000001 ', '+6000001'],
    ],
  ])('at least %i', (minimum, matching, other) => {
    const pattern = new RegExp(decimalAtLeastPattern(minimum));
    for (const text of matching) expect(pattern.test(text), text).toBe(true);
    for (const text of other) expect(pattern.test(text), text).toBe(false);
  });

  it('agrees with numeric comparison on every number around its bound', () => {
    for (const minimum of [7, 99, 1_000, 4_600_001, 6_000_001, 6_291_456]) {
      const pattern = new RegExp(decimalAtLeastPattern(minimum));
      for (let value = Math.max(0, minimum - 2_000); value <= minimum + 2_000; value += 1)
        expect(pattern.test(String(value)), `${value} vs ${minimum}`).toBe(value >= minimum);
      for (let value = 1; value < 1e12; value = value * 7 + 3)
        expect(pattern.test(String(value)), `${value} vs ${minimum}`).toBe(value >= minimum);
    }
  });

  it.each([0, -1, 1.5])('refuses %s', (minimum) => {
    expect(() => decimalAtLeastPattern(minimum)).toThrow(RangeError);
  });
});
