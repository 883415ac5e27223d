import { createServer } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { classifyAddress } from '../../shared/domain/address-ranges.ts';
import { guardedToolFetch } from '../../shared/services/tool-calls.ts';

/** A loopback address literal, or localhost. */
function onThisMachine(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || (isIP(host) !== 0 && classifyAddress(host).range === 'loopback');
}

export interface FakeToolEndpoint {
  /** Fetch for the media service's HTTP tools: answered by this endpoint, a loopback tool reached through the guard. */
  fetch: typeof fetch;
  /** Where it listens (another process on this machine forwards tool requests here: the capacity bench). */
  origin: string;
  /** Requests received: the tool's URL, method and body (tests). */
  readonly calls: { url: string; method: string; body: string }[];
  stop: () => Promise<void>;
}

/**
 * Stands in for the customers' tool endpoints on this machine (their https URLs are not reachable
 * offline, and nothing local may leave it): the media service's tool fetch sends every tool request
 * here, with the tool's URL in `X-Tool-Url`; the endpoint answers `200 {"ok": true, "tool_url",
 * "method", "received"}` where `received` is the query or JSON body it got.
 *
 * A tool on this machine itself (a loopback address, e.g. `http://127.0.0.1:8080/lookup`, what
 * someone trying the local stack points a tool at) is reached for real, through the same SSRF
 * guard as on AWS, which the local stack lets reach loopback over plain http.
 */
export async function startFakeToolEndpoint(): Promise<FakeToolEndpoint> {
  const calls: { url: string; method: string; body: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = String(request.headers['x-tool-url'] ?? '');
      const body = Buffer.concat(chunks).toString('utf8');
      calls.push({ url, method: request.method ?? 'GET', body });
      const received = body
        ? (JSON.parse(body) as unknown)
        : Object.fromEntries(new URL(url || 'http://localhost').searchParams);
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ ok: true, tool_url: url.split('?')[0], method: request.method, received }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (onThisMachine(new URL(url))) return guardedToolFetch(input, init);
      return fetch(`${origin}/tool`, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), 'X-Tool-Url': url },
      });
    },
    origin,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
