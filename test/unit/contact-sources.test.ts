import { describe, expect, it } from 'vitest';
import { checkRows, parseCalendar, parseContactsCsv, parseSheetValues } from '../../shared/domain/contact-sources.ts';
import { isValidTimeZone } from '../../shared/domain/time-windows.ts';

describe('parseContactsCsv', () => {
  it.each([
    [
      'named phone column',
      'Name,Phone\nAnna,+48601234561\n',
      [{ phone_number: '+48601234561', first_name: 'Anna', last_name: '', timezone: null }],
    ],
    [
      'detected by content',
      'who,contact\nBob,+12125550101\nEve,+12125550102\n',
      [
        { phone_number: '+12125550101', first_name: '', last_name: '', timezone: null },
        { phone_number: '+12125550102', first_name: '', last_name: '', timezone: null },
      ],
    ],
    [
      'quotes, CRLF, BOM, names and time zone',
      '\uFEFFfirst_name,last_name,mobile,timezone\r\n"Anna, Jr.",Kowalska,+48 601 234 561,Europe/Warsaw\r\n',
      [{ phone_number: '+48 601 234 561', first_name: 'Anna, Jr.', last_name: 'Kowalska', timezone: 'Europe/Warsaw' }],
    ],
  ])('%s', async (_name, csv, expected) => {
    expect(await parseContactsCsv(csv)).toEqual(expected);
  });

  it('uses the column given in source_config.phone_column', async () => {
    expect((await parseContactsCsv('a,b\n+48601234561,+12125550101\n', 'b'))[0]!.phone_number).toBe('+12125550101');
  });

  it.each([
    ['no rows', 'phone\n', /has no rows/],
    ['no phone-like column', 'a,b\nx,y\n', /no phone number column/],
    ['unknown phone_column', 'phone\n+48601234561\n', /no column 'tel'/, 'tel'],
    ['broken quoting', 'phone\n"+48601234561\n', /could not be parsed/],
  ])('refuses %s', async (_name, csv, message, column?: string) => {
    await expect(parseContactsCsv(csv, column)).rejects.toThrow(message);
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

describe('parseSheetValues', () => {
  it('takes the first row as the header and skips blank rows', () => {
    expect(parseSheetValues([['Name', 'Phone'], ['Anna', '+48601234561'], ['', ''], ['Bob']])).toEqual([
      { phone_number: '+48601234561', first_name: 'Anna', last_name: '', timezone: null },
      { phone_number: '', first_name: 'Bob', last_name: '', timezone: null },
    ]);
  });
});

describe('parseCalendar', () => {
  const ics = (events: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${events}END:VCALENDAR\r\n`;
  const event = (uid: string, start: string, fields: string) =>
    `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART:${start}\r\n${fields}END:VEVENT\r\n`;

  it('turns future events with a phone number into contacts named by their summary', async () => {
    const text = ics(
      event(
        '1',
        '20261124T090000Z',
        'SUMMARY:Anna Nowak - check-up\r\nDESCRIPTION:Call +48 601 234 561 the day before\r\n',
      ) +
        event('2', '20261124T100000Z', 'SUMMARY:Bob\r\nLOCATION:+1 212 555 0101\r\n') +
        event('3', '20261124T110000Z', 'SUMMARY:No phone here\r\n') +
        event('4', '20261120T090000Z', 'SUMMARY:Past +48601234562\r\n'),
    );
    expect(await parseCalendar(text, new Date('2026-11-23T00:00:00Z'))).toEqual([
      { phone_number: '+48 601 234 561', first_name: 'Anna Nowak - check-up', last_name: '', timezone: null },
      { phone_number: '+1 212 555 0101', first_name: 'Bob', last_name: '', timezone: null },
    ]);
  });

  it('refuses text that is not iCalendar', async () => {
    await expect(parseCalendar('hello', new Date())).rejects.toThrow(/Calendar could not be parsed/);
  });
});
