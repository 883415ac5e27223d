import { parse } from 'csv-parse/sync';
import { parsePhoneNumber } from './phone-numbers.ts';

/** One row of a campaign's contact list, as read from its source. */
export interface SourceRow {
  phone_number: string;
  first_name: string;
  last_name: string;
  timezone: string | null;
}

/** A row ready to dial, or the reason it cannot be. */
export type CheckedRow = SourceRow & ({ valid: true; e164: string } | { valid: false; error: string });

export class SourceError extends Error {}

const PHONE_HEADER = /^(phone|phone[ _-]?number|tel|telephone|mobile|cell|number|msisdn|telefon|numer)$/i;
const FIRST_NAME_HEADER = /^(first[ _-]?name|given[ _-]?name|firstname|name|imie|imię)$/i;
const LAST_NAME_HEADER = /^(last[ _-]?name|surname|family[ _-]?name|lastname|nazwisko)$/i;
const TIMEZONE_HEADER = /^(time[ _-]?zone|tz|timezone)$/i;

/**
 * The phone column: the one named `phoneColumn`, else a header that names a phone (phone, tel,
 * mobile, number, …), else the column whose values most often parse as phone numbers.
 */
function phoneColumnOf(headers: string[], rows: Record<string, string>[], phoneColumn?: string): string {
  if (phoneColumn) {
    if (!headers.includes(phoneColumn)) throw new SourceError(`CSV has no column '${phoneColumn}' (columns: ${headers.join(', ')})`);
    return phoneColumn;
  }
  const named = headers.find((header) => PHONE_HEADER.test(header.trim()));
  if (named) return named;
  const sample = rows.slice(0, 50);
  const scored = headers
    .map((header) => ({ header, hits: sample.filter((row) => parsePhoneNumber(row[header] ?? '')).length }))
    .sort((a, b) => b.hits - a.hits);
  if (!scored[0] || scored[0].hits === 0) throw new SourceError('CSV has no phone number column: name it "phone" or give source_config.phone_column');
  return scored[0].header;
}

/** Reads an RFC 4180 CSV with a header row into contact rows (csv-parse; BOM, quotes, CRLF handled). */
export function parseContactsCsv(text: string, phoneColumn?: string): SourceRow[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, relax_column_count: true }) as Record<string, string>[];
  } catch (error) {
    throw new SourceError(`CSV could not be parsed: ${(error as Error).message}`);
  }
  if (records.length === 0) throw new SourceError('CSV has no rows');
  const headers = Object.keys(records[0]!);
  const phone = phoneColumnOf(headers, records, phoneColumn);
  const first = headers.find((header) => FIRST_NAME_HEADER.test(header.trim()));
  const last = headers.find((header) => LAST_NAME_HEADER.test(header.trim()));
  const zone = headers.find((header) => TIMEZONE_HEADER.test(header.trim()));
  return records.map((record) => ({
    phone_number: record[phone] ?? '',
    first_name: (first && record[first]) || '',
    last_name: (last && record[last]) || '',
    timezone: (zone && record[zone]) || null,
  }));
}

/** Validates each row's number (E.164) and time zone; invalid rows are kept with their reason. */
export function checkRows(rows: readonly SourceRow[], isValidZone: (zone: string) => boolean): CheckedRow[] {
  return rows.map((row) => {
    const parsed = parsePhoneNumber(row.phone_number);
    if (!parsed) return { ...row, valid: false, error: `invalid phone number '${row.phone_number}': use E.164, e.g. +48601234567` };
    if (row.timezone && !isValidZone(row.timezone)) return { ...row, valid: false, error: `invalid timezone '${row.timezone}'` };
    return { ...row, valid: true, e164: parsed.e164 };
  });
}
