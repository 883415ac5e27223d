import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { writeCsv } from '../../shared/services/csv.ts';

describe('the CSV the product writes (spreadsheet-safe, OWASP CSV injection)', () => {
  it.each([
    ['=HYPERLINK("http://example.invalid","click")', `'=HYPERLINK("http://example.invalid","click")`],
    ['+48601234567', `'+48601234567`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1:A2)', `'@SUM(A1:A2)`],
    ['\tcmd', `'\tcmd`],
    ['\rcmd', `'\rcmd`],
    ['Ann', 'Ann'],
    ['Smith-Jones', 'Smith-Jones'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('writes %j so that a spreadsheet reads %j', async (value, cell) => {
    const csv = await writeCsv([{ name: value }], ['name'], { header: true });
    expect(parse(csv, { columns: true })).toEqual([{ name: cell }]);
  });

  it('leaves numbers (negative ones too) and dates as values', async () => {
    const csv = await writeCsv(
      [{ cost: -1.5, count: 3, at: new Date('2026-11-25T10:00:00Z') }],
      ['cost', 'count', 'at'],
      {
        header: false,
      },
    );
    expect(csv).toBe('-1.5,3,2026-11-25T10:00:00.000Z\n');
  });
});
