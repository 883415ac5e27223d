import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface MediaServer {
  port: number;
  close(): Promise<void>;
}

function json(status: number, body: unknown): [number, Record<string, string>, string] {
  return [status, { 'Content-Type': 'application/json' }, JSON.stringify(body)];
}

function route(method: string | undefined, path: string): [number, Record<string, string>, string] {
  if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) return json(200, { status: 'ok' });
  return json(404, { detail: 'Not Found' });
}

/** Starts the media service; port 0 picks a free port (tests). */
export async function startMediaServer({ port = Number(process.env.PORT ?? 8080) }: { port?: number } = {}): Promise<MediaServer> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const [status, headers, body] = route(request.method, path);
    response.writeHead(status, headers).end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

// Standalone: `node src/server.ts` (container) or `npx tsx media/src/server.ts`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { port, close } = await startMediaServer();
  console.log(JSON.stringify({ level: 'INFO', message: 'media service listening', port }));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void close().then(() => process.exit(0)));
  }
}
