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
    if (!headers.includes(phoneColumn))
      throw new SourceError(`CSV has no column '${phoneColumn}' (columns: ${headers.join(', ')})`);
    return phoneColumn;
  }
  const named = headers.find((header) => PHONE_HEADER.test(header.trim()));
  if (named) return named;
  const sample = rows.slice(0, 50);
  const scored = headers
    .map((header) => ({ header, hits: sample.filter((row) => parsePhoneNumber(row[header] ?? '')).length }))
    .sort((a, b) => b.hits - a.hits);
  if (!scored[0] || scored[0].hits === 0)
    throw new SourceError('CSV has no phone number column: name it "phone" or give source_config.phone_column');
  return scored[0].header;
}

/** Contact rows from header-keyed records (a CSV file, a spreadsheet range). */
export function rowsFromRecords(records: Record<string, string>[], phoneColumn?: string): SourceRow[] {
  if (records.length === 0) throw new SourceError('The source has no rows');
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

/**
 * Reads an RFC 4180 CSV with a header row into contact rows (csv-parse; BOM, quotes, CRLF handled).
 * csv-parse, like ical.js below, loads with the first source of its kind, not with the function.
 */
export async function parseContactsCsv(text: string, phoneColumn?: string): Promise<SourceRow[]> {
  const { parse } = await import('csv-parse/sync');
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      columns: true,
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
    }) as Record<string, string>[];
  } catch (error) {
    throw new SourceError(`CSV could not be parsed: ${(error as Error).message}`);
  }
  return rowsFromRecords(records, phoneColumn);
}

/** A spreadsheet range as the Sheets API returns it: the first row names the columns. */
export function parseSheetValues(values: string[][], phoneColumn?: string): SourceRow[] {
  const [header, ...rows] = values;
  if (!header) throw new SourceError('The sheet is empty');
  const records = rows
    .filter((row) => row.some((cell) => String(cell ?? '').trim() !== ''))
    .map((row) =>
      Object.fromEntries(header.map((name, index) => [String(name).trim(), String(row[index] ?? '').trim()])),
    );
  return rowsFromRecords(records, phoneColumn);
}

const PHONE_IN_TEXT = /\+[\d\s().-]{7,20}\d/;

/**
 * The `calendar` source: an iCalendar (RFC 5545) feed, parsed with ical.js. Every event that has
 * not started yet and carries a phone number (in LOCATION, DESCRIPTION or SUMMARY, first match, with
 * a leading `+`) becomes a contact named by its SUMMARY: reminder and confirmation calls.
 */
export async function parseCalendar(icsText: string, now: Date): Promise<SourceRow[]> {
  const { default: ICAL } = await import('ical.js');
  let events: { summary: string; description: string; location: string; start: Date }[];
  try {
    const calendar = new ICAL.Component(ICAL.parse(icsText));
    events = calendar.getAllSubcomponents('vevent').map((component) => {
      const event = new ICAL.Event(component);
      return {
        summary: event.summary ?? '',
        description: event.description ?? '',
        location: event.location ?? '',
        start: event.startDate.toJSDate(),
      };
    });
  } catch (error) {
    throw new SourceError(`Calendar could not be parsed: ${(error as Error).message}`);
  }
  return events
    .filter((event) => event.start.getTime() >= now.getTime())
    .map((event) => ({
      event,
      phone: [event.location, event.description, event.summary]
        .map((text) => PHONE_IN_TEXT.exec(text)?.[0])
        .find(Boolean),
    }))
    .filter((candidate): candidate is typeof candidate & { phone: string } => Boolean(candidate.phone))
    .map(({ event, phone }) => ({
      phone_number: phone.trim(),
      first_name: event.summary,
      last_name: '',
      timezone: null,
    }));
}

/** Validates each row's number (E.164) and time zone; invalid rows are kept with their reason. */
export function checkRows(rows: readonly SourceRow[], isValidZone: (zone: string) => boolean): CheckedRow[] {
  return rows.map((row) => {
    const parsed = parsePhoneNumber(row.phone_number);
    if (!parsed)
      return {
        ...row,
        valid: false,
        error: `invalid phone number '${row.phone_number}': use E.164, e.g. +48601234567`,
      };
    if (row.timezone && !isValidZone(row.timezone))
      return { ...row, valid: false, error: `invalid timezone '${row.timezone}'` };
    return { ...row, valid: true, e164: parsed.e164 };
  });
}
