import { DateTime } from 'luxon';
import { expect } from 'vitest';
import { apiClient, type TestOrganization } from './api.ts';

/**
 * Valid numbers, one per zone, whose last digit can be anything (the simulated provider decides
 * the outcome from it). Zones spread round the clock, so at any moment some are in calling hours
 * and some are not; tests pick by the real clock instead of faking it.
 */
const CANDIDATES = [
  { prefix: '+4860123456', zone: 'Europe/Warsaw' },
  { prefix: '+8131234567', zone: 'Asia/Tokyo' },
  { prefix: '+6129374400', zone: 'Australia/Sydney' },
  { prefix: '+91987654321', zone: 'Asia/Calcutta' },
  { prefix: '+551198765432', zone: 'America/Sao_Paulo' },
  { prefix: '+1212555010', zone: 'America/New_York' },
  { prefix: '+1213555010', zone: 'America/Los_Angeles' },
  { prefix: '+1808555010', zone: 'Pacific/Honolulu' },
] as const;

function pick(accept: (hour: number) => boolean, lastDigit: number, offset = 0): string {
  const matching = CANDIDATES.filter(({ zone }) => accept(DateTime.now().setZone(zone).hour));
  const candidate = matching[offset % matching.length];
  if (!candidate) throw new Error('No candidate zone matches; extend CANDIDATES');
  return `${candidate.prefix}${lastDigit}`;
}

/** A number whose local time is well inside 08:00-21:00 (calls to it are allowed now). */
export const daytimeNumber = (lastDigit: number, offset = 0) =>
  pick((hour) => hour >= 9 && hour < 20, lastDigit, offset);

/** A number where it is the middle of the night (calls to it get 409). */
export const nighttimeNumber = (lastDigit = 1) => pick((hour) => hour >= 0 && hour < 7, lastDigit);

/**
 * `count` different numbers, all inside calling hours now and all ending in `lastDigit` (the
 * simulated outcome): the daytime zones' prefixes with their last five digits counted through.
 */
export async function distinctDaytimeNumbers(count: number, lastDigit: number): Promise<string[]> {
  const { parsePhoneNumber, phoneNumberTimeZones } = await import('../../shared/domain/phone-numbers.ts');
  const daytime = CANDIDATES.filter(({ zone }) => {
    const hour = DateTime.now().setZone(zone).hour;
    return hour >= 9 && hour < 19;
  });
  const numbers: string[] = [];
  for (const { prefix, zone } of daytime) {
    const stem = prefix.slice(0, -5);
    for (let i = 0; i < 100_000 && numbers.length < count; i += 1) {
      const number = `${stem}${String(i).padStart(5, '0')}${lastDigit}`;
      const zones = parsePhoneNumber(number) ? await phoneNumberTimeZones(number) : [];
      if (zones.length === 1 && zones[0] === zone) numbers.push(number);
    }
  }
  if (numbers.length < count) throw new Error(`Only ${numbers.length} distinct daytime numbers; extend CANDIDATES`);
  return numbers;
}

/** The smallest file the document upload takes: a PDF by its signature. */
export const SCAN_PDF = () =>
  new Blob(['%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'], { type: 'application/pdf' });

/** Uploads an identity document's scan (`POST /phone-numbers/documents`); the answer. */
export async function uploadScan(key: string, file: Blob = SCAN_PDF(), name = 'id-card.pdf') {
  const form = new FormData();
  form.append('file', file, name);
  const response = await fetch(`${apiClient().baseUrl}/phone-numbers/documents`, {
    method: 'POST',
    headers: { 'X-API-Key': key },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/**
 * The subscriber data a regulated number (a Polish mobile) is bought with, its scan uploaded.
 * The document number chooses the local reviewers' verdict (local/carrier/regulatory-reviewers.ts):
 * `HOLD…` (the default) stays in review, so the number stays pending; `REJECT…` is rejected;
 * anything else approved.
 */
export async function endUserWithScan(key: string, documentNumber = 'HOLD-XYZ987654') {
  const scan = await uploadScan(key);
  expect(scan.status).toBe(201);
  return {
    name: 'Jan Nowak',
    address: 'ul. Długa 2, Gdańsk',
    document_type: 'id_card',
    document_number: documentNumber,
    document_id: scan.body.id as number,
  };
}

/**
 * A number bought from the platform's marketplace (one needing no review: active at once), the
 * next offer when another suite took one meanwhile (409).
 */
export async function buyFromMarketplace(
  org: TestOrganization,
  country: string,
  type: 'local' | 'mobile' | 'toll_free',
): Promise<{ id: number; phone_number: string; capabilities: string[] }> {
  const api = apiClient();
  const market = await api.request('GET', `/phone-numbers/marketplace?country_code=${country}&number_type=${type}`, {
    key: org.key,
  });
  for (const offer of market.body.items as { phone_number: string }[]) {
    const purchase = await api.request('POST', '/phone-numbers/marketplace/purchase', {
      key: org.key,
      body: { phone_number: offer.phone_number, country_code: country, number_type: type, consent: true },
    });
    if (purchase.status === 200) return purchase.body;
    expect(purchase.status).toBe(409);
  }
  throw new Error(`No ${country} ${type} number left in the local marketplace`);
}
