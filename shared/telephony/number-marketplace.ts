import type { NumberType } from '../domain/number-pricing.ts';

/**
 * The number-marketplace adapter (the telephony provider's number inventory):
 *   GET  {NUMBER_MARKETPLACE_URL}/available-numbers?country=PL&type=mobile → {numbers: AvailableNumber[]}
 *   POST {NUMBER_MARKETPLACE_URL}/numbers {phone_number}  (Idempotency-Key) → {provider_number_id, order_id}
 *   DELETE {NUMBER_MARKETPLACE_URL}/numbers/{provider_number_id}  (release)
 * Authenticated like the telephony API (TELEPHONY_API_KEY). The local stack runs a fake inventory.
 */
export interface AvailableNumber {
  phone_number: string;
  country_code: string;
  number_type: NumberType;
  capabilities: string[];
}

export class MarketplaceError extends Error {
  override readonly name = 'MarketplaceError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function settings() {
  const url = process.env.NUMBER_MARKETPLACE_URL;
  if (!url) throw new MarketplaceError('NUMBER_MARKETPLACE_URL is not configured', 503);
  return { url: url.replace(/\/$/, ''), headers: { Authorization: `Bearer ${process.env.TELEPHONY_API_KEY ?? ''}`, 'Content-Type': 'application/json' } };
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const { url, headers } = settings();
  const response = await fetch(`${url}${path}`, { ...init, headers: { ...headers, ...init.headers }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new MarketplaceError(`Marketplace answered ${response.status}: ${await response.text()}`, response.status);
  return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
}

export async function searchNumbers(country: string, type?: string): Promise<AvailableNumber[]> {
  const query = new URLSearchParams({ country, ...(type ? { type } : {}) });
  return (await call<{ numbers: AvailableNumber[] }>(`/available-numbers?${query}`, { method: 'GET' })).numbers;
}

/** Buys a number; the idempotency key makes a retried order buy it once. */
export async function orderNumber(phoneNumber: string, idempotencyKey: string): Promise<{ providerNumberId: string; orderId: number }> {
  const result = await call<{ provider_number_id: string; order_id: number }>('/numbers', {
    method: 'POST',
    headers: { 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify({ phone_number: phoneNumber }),
  });
  return { providerNumberId: result.provider_number_id, orderId: result.order_id };
}

export async function releaseNumber(providerNumberId: string): Promise<void> {
  await call<void>(`/numbers/${encodeURIComponent(providerNumberId)}`, { method: 'DELETE' });
}
