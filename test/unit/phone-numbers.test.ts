import { describe, expect, it } from 'vitest';
import { parsePhoneNumber, phoneNumberTimeZones } from '../../shared/domain/phone-numbers.ts';

describe('parsePhoneNumber', () => {
  it.each<[string, string | undefined, string | undefined]>([
    ['+48601234567', '+48601234567', 'PL'],
    ['+48 601-234-567', '+48601234567', 'PL'],
    ['+1 (212) 555-1234', '+12125551234', 'US'],
    ['  +442071838750 ', '+442071838750', 'GB'],
    ['601234567', undefined, undefined],
    ['+4860123', undefined, undefined],
    ['+0123456789', undefined, undefined],
    ['call me', undefined, undefined],
    ['', undefined, undefined],
  ])('%o → %o', (raw, e164, country) => {
    const parsed = parsePhoneNumber(raw);
    expect(parsed?.e164).toBe(e164);
    expect(parsed?.country).toBe(country);
  });
});

describe('phoneNumberTimeZones', () => {
  it.each<[string, string[]]>([
    ['+48601234567', ['Europe/Warsaw']],
    ['+12125551234', ['America/New_York']],
    ['+13105551234', ['America/Los_Angeles']],
    ['+61212345678', ['Australia/Sydney']],
  ])('%s → %o', async (e164, zones) => {
    expect(await phoneNumberTimeZones(e164)).toEqual(zones);
  });

  it('a toll-free North American number may be in any of the plan zones', async () => {
    const zones = await phoneNumberTimeZones('+18005551234');
    expect(zones).toContain('America/New_York');
    expect(zones).toContain('Pacific/Honolulu');
    expect(zones.length).toBeGreaterThan(10);
  });

  it('an invalid number has no zones', async () => {
    expect(await phoneNumberTimeZones('+4860123')).toEqual([]);
  });
});
