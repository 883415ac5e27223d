import {
  checkRows,
  parseCalendar,
  parseContactsCsv,
  parseSheetValues,
  SourceError,
  type SourceRow,
} from '../domain/contact-sources.ts';
import { isValidTimeZone } from '../domain/time-windows.ts';
import { RequestValidationError, type Loc } from '../http/validation-error.ts';
import type { ContactRecord } from '../domain/campaign-records.ts';
import { readSheet } from './connections.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';

export interface CampaignSource {
  source_type: string;
  source_id: string;
  source_config?: Record<string, unknown> | null;
  manual_contacts?: { phone_number: string; first_name: string; last_name: string; timezone?: string | null }[] | null;
}

/** Sources read again on `source_refresh_minutes`: the ones that live outside the request. */
export const refreshable = (source: CampaignSource): boolean =>
  source.source_type === 'google-sheet' ||
  (source.source_type === 'calendar' && typeof source.source_config?.ics_url === 'string');

const DEFAULT_SHEET_RANGE = 'A:Z';

const missing = (loc: Loc, input: unknown) =>
  new RequestValidationError([{ type: 'missing', loc, msg: 'Field required', input }]);

function configString(source: CampaignSource, name: string): string | undefined {
  const value = source.source_config?.[name];
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** iCalendar feeds through the SSRF guard with its default caps: 10 s and 5 MiB. */
async function fetchCalendar(url: string): Promise<string> {
  try {
    const response = await guardedFetch(url);
    if (!response.ok) throw new SourceError(`The calendar could not be fetched: HTTP ${response.status}`);
    return await response.text();
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`The calendar could not be fetched: ${(error as Error).message}`);
  }
}

/**
 * Reads the contact rows of a campaign source:
 * - `manual`: `manual_contacts`;
 * - `csv`: `source_config.csv_text` (and optional `phone_column`);
 * - `google-sheet`: the spreadsheet `source_id`, range `source_config.range` (default A:Z, first
 *   row = column names) through the connection `source_config.connection_id`;
 * - `calendar`: the iCalendar feed `source_config.ics_url` or `ics_text`: upcoming events with a
 *   phone number.
 * Missing settings are 422s on their `loc`; unreadable content is a SourceError.
 */
export async function readSourceRows(orgId: number, source: CampaignSource, now: Date): Promise<SourceRow[]> {
  const phoneColumn = configString(source, 'phone_column');
  switch (source.source_type) {
    case 'manual':
      if (!source.manual_contacts?.length) throw missing(['body', 'manual_contacts'], source.manual_contacts ?? null);
      return source.manual_contacts.map((contact) => ({ ...contact, timezone: contact.timezone ?? null }));
    case 'csv': {
      const csvText = source.source_config?.csv_text;
      if (typeof csvText !== 'string')
        throw missing(['body', 'source_config', 'csv_text'], source.source_config ?? null);
      return parseContactsCsv(csvText, phoneColumn);
    }
    case 'google-sheet': {
      const connectionId = configString(source, 'connection_id');
      if (!connectionId) throw missing(['body', 'source_config', 'connection_id'], source.source_config ?? null);
      if (!source.source_id) throw missing(['body', 'source_id'], source.source_id);
      const values = await readSheet(
        orgId,
        connectionId,
        source.source_id,
        configString(source, 'range') ?? DEFAULT_SHEET_RANGE,
      );
      return parseSheetValues(values, phoneColumn);
    }
    default: {
      const url = configString(source, 'ics_url');
      const text = configString(source, 'ics_text') ?? (url ? await fetchCalendar(url) : undefined);
      if (!text) throw missing(['body', 'source_config', 'ics_url'], source.source_config ?? null);
      return parseCalendar(text, now);
    }
  }
}

/** New contact records for rows not seen before (by number), numbered after `lastRow`. */
export function newContacts(
  rows: readonly SourceRow[],
  known: Set<string>,
  lastRow: number,
  dueAt: string,
): ContactRecord[] {
  const contacts: ContactRecord[] = [];
  for (const row of checkRows(rows, isValidTimeZone)) {
    const identity = row.valid ? row.e164 : row.phone_number.trim();
    if (known.has(identity)) continue;
    known.add(identity);
    contacts.push({
      row: lastRow + contacts.length + 1,
      phone_number: row.phone_number,
      e164: row.valid ? row.e164 : null,
      first_name: row.first_name,
      last_name: row.last_name,
      timezone: row.timezone,
      status: row.valid ? 'pending' : 'invalid',
      attempts: 0,
      last_outcome: null,
      call_disposition: null,
      run_id: null,
      next_attempt_at: row.valid ? dueAt : null,
      last_attempt_at: null,
      error: row.valid ? null : row.error,
    });
  }
  return contacts;
}
