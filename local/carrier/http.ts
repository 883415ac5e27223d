import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The HTTP side both wire layers share: reading requests, answering JSON, serving on loopback. */

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** The platform's and the tests' addresses only: a carrier never sends anything off this machine. */
export function isLoopback(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
  } catch {
    return false;
  }
}

/**
 * A wire's API on a free loopback port. A request whose handling throws is logged under `name`
 * and answered by `failed` (the provider's 500 shape).
 */
export async function serveOnLoopback(
  name: string,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  failed: (response: ServerResponse) => void,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error(`${name}:`, error);
      if (!response.headersSent) failed(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
