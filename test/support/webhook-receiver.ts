import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A local HTTP endpoint that records what it receives. `respond` decides each answer (status and
 * headers), so tests can make the first attempts fail.
 */
export async function startWebhookReceiver(
  respond: (index: number) => { status: number; headers?: Record<string, string> } = () => ({ status: 204 }),
) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = respond(received.length - 1);
      response.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Receivers started by one test file, all closed together (in `afterAll`). */
export function webhookReceivers() {
  const started: Awaited<ReturnType<typeof startWebhookReceiver>>[] = [];
  return {
    start: async (respond?: Parameters<typeof startWebhookReceiver>[0]) => {
      const receiver = await startWebhookReceiver(respond);
      started.push(receiver);
      return receiver;
    },
    closeAll: async () => {
      for (const receiver of started.splice(0)) await receiver.close();
    },
  };
}
