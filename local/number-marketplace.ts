import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AvailableNumber } from '../shared/telephony/number-marketplace.ts';

/** A small inventory of valid numbers: Polish mobile and landline, US local and toll-free, UK. */
function inventory(): AvailableNumber[] {
  const numbers: AvailableNumber[] = [];
  const add = (prefix: string, count: number, country: string, type: AvailableNumber['number_type']) => {
    for (let i = 0; i < count; i += 1) numbers.push({ phone_number: `${prefix}${String(i).padStart(2, '0')}`, country_code: country, number_type: type, capabilities: ['voice', 'sms'] });
  };
  add('+486012345', 20, 'PL', 'mobile');
  add('+482212345', 10, 'PL', 'local');
  add('+121255501', 10, 'US', 'local');
  add('+180020000', 5, 'US', 'toll_free');
  add('+442079460', 10, 'GB', 'local');
  return numbers;
}

/** The telephony provider's number marketplace, locally: search the inventory, buy, release. */
export async function startNumberMarketplace(options: { apiKey: string }): Promise<{ url: string; stop: () => Promise<void> }> {
  const available = new Map(inventory().map((number) => [number.phone_number, number]));
  const orders = new Map<string, { provider_number_id: string; order_id: number }>();
  let nextOrder = 1000;

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const reply = (status: number, body?: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) return reply(401, { error: 'bad credentials' });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/available-numbers') {
      const country = url.searchParams.get('country');
      const type = url.searchParams.get('type');
      return reply(200, { numbers: [...available.values()].filter((number) => number.country_code === country && (!type || number.number_type === type)) });
    }
    if (request.method === 'POST' && url.pathname === '/numbers') {
      const key = String(request.headers['idempotency-key'] ?? '');
      const previous = orders.get(key);
      if (previous) return reply(201, previous);
      const { phone_number: phoneNumber } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { phone_number: string };
      if (!available.delete(phoneNumber)) return reply(409, { error: 'number not available' });
      const order = { provider_number_id: `PN${randomBytes(8).toString('hex')}`, order_id: nextOrder++ };
      orders.set(key || order.provider_number_id, order);
      return reply(201, order);
    }
    if (request.method === 'DELETE' && url.pathname.startsWith('/numbers/')) return reply(204);
    return reply(404, { error: 'not found' });
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
