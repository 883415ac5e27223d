import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { NumberInventory } from './number-inventory.ts';

/** Telnyx's error shape: `{errors: [{code, title, detail}]}`. */
export const telnyxError = (response: ServerResponse, status: number, code: string, title: string, detail = title) =>
  sendJson(response, status, { errors: [{ code, title, detail }] });

/**
 * The local Telnyx's number resources on the carrier's number inventory (`GET /v2/phone_numbers`,
 * `DELETE /v2/phone_numbers/{id}`, `GET /v2/available_phone_numbers`, `POST /v2/number_orders`),
 * for the account of `connectionId`; false when the request is none of them.
 */
export function telnyxNumbers(
  numbers: NumberInventory,
  connectionId: string,
  request: { method: string | undefined; path: string; query: URLSearchParams; body: Record<string, unknown> },
  response: ServerResponse,
): boolean {
  const { method, path, query, body } = request;
  if (path === '/v2/phone_numbers' && method === 'GET') {
    const wanted = query.get('filter[phone_number]');
    const owned = numbers.ownedBy(connectionId).filter((number) => !wanted || number.phone_number === wanted);
    sendJson(response, 200, {
      data: owned.map((number) => ({
        id: number.id,
        record_type: 'phone_number',
        phone_number: number.phone_number,
        status: 'active',
        connection_id: connectionId,
      })),
      meta: { total_results: owned.length, page_number: 1, page_size: 20, total_pages: 1 },
    });
    return true;
  }
  const release = /^\/v2\/phone_numbers\/([^/]+)$/.exec(path);
  if (release && method === 'DELETE') {
    const owned = numbers.release(connectionId, release[1]!);
    if (!owned) telnyxError(response, 404, '10005', 'Resource not found');
    else sendJson(response, 200, { data: { id: owned.id, phone_number: owned.phone_number, status: 'deleted' } });
    return true;
  }
  if (path === '/v2/available_phone_numbers' && method === 'GET') {
    const found = numbers.forSale(query.get('filter[country_code]'), query.get('filter[phone_number_type]'));
    sendJson(response, 200, {
      data: found.map((number) => ({
        record_type: 'available_phone_number',
        phone_number: number.phone_number,
        features: number.capabilities.map((name) => ({ name })),
      })),
      metadata: { total_results: found.length },
    });
    return true;
  }
  if (path === '/v2/number_orders' && method === 'POST') {
    const wanted = Array.isArray(body.phone_numbers) ? (body.phone_numbers as { phone_number?: string }[]) : [];
    const offered = wanted.map((each) => numbers.offer(String(each.phone_number)));
    if (!offered.length || offered.some((number) => !number)) {
      telnyxError(response, 422, '10015', 'Number not available');
      return true;
    }
    const ordered = offered.map((number) => {
      const owned = numbers.sell(connectionId, number!.phone_number, randomUUID())!;
      return { id: owned.id, phone_number: owned.phone_number, status: 'success' };
    });
    sendJson(response, 200, {
      data: { id: randomUUID(), record_type: 'number_order', status: 'success', phone_numbers: ordered },
    });
    return true;
  }
  return false;
}
