import { describe, expect, it } from 'vitest';
import { checkRows, parseContactsCsv } from '../../shared/domain/contact-sources.ts';
import { isValidTimeZone } from '../../shared/domain/time-windows.ts';

describe('parseContactsCsv', () => {
  it.each([
    ['named phone column', 'Name,Phone\nAnna,+48601234561\n', [{ phone_number: '+48601234561', first_name: 'Anna', last_name: '', timezone: null }]],
    ['detected by content', 'who,contact\nBob,+12125550101\nEve,+12125550102\n', [
      { phone_number: '+12125550101', first_name: '', last_name: '', timezone: null },
      { phone_number: '+12125550102', first_name: '', last_name: '', timezone: null },
    ]],
    ['quotes, CRLF, BOM, names and time zone', '\uFEFFfirst_name,last_name,mobile,timezone\r\n"Anna, Jr.",Kowalska,+48 601 234 561,Europe/Warsaw\r\n', [
      { phone_number: '+48 601 234 561', first_name: 'Anna, Jr.', last_name: 'Kowalska', timezone: 'Europe/Warsaw' },
    ]],
  ])('%s', (_name, csv, expected) => {
    expect(parseContactsCsv(csv)).toEqual(expected);
  });

  it('uses the column given in source_config.phone_column', () => {
    expect(parseContactsCsv('a,b\n+48601234561,+12125550101\n', 'b')[0]!.phone_number).toBe('+12125550101');
  });

  it.each([
    ['no rows', 'phone\n', /no rows/],
    ['no phone-like column', 'a,b\nx,y\n', /no phone number column/],
    ['unknown phone_column', 'phone\n+48601234561\n', /no column 'tel'/, 'tel'],
    ['broken quoting', 'phone\n"+48601234561\n', /could not be parsed/],
  ])('refuses %s', (_name, csv, message, column?: string) => {
    expect(() => parseContactsCsv(csv, column)).toThrow(message);
  });
});

describe('checkRows', () => {
  it('normalises valid numbers and keeps the reason for invalid rows', () => {
    const rows = checkRows(
      [
        { phone_number: '+48 601-234-561', first_name: '', last_name: '', timezone: null },
        { phone_number: '601234561', first_name: '', last_name: '', timezone: null },
        { phone_number: '+48601234561', first_name: '', last_name: '', timezone: 'Mars/Olympus' },
      ],
      isValidTimeZone,
    );
    expect(rows.map((row) => (row.valid ? row.e164 : row.error))).toEqual([
      '+48601234561',
      "invalid phone number '601234561': use E.164, e.g. +48601234567",
      "invalid timezone 'Mars/Olympus'",
    ]);
  });
});
