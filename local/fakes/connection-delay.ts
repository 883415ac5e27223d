import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A new connection's setup as a provider across the internet costs it (DNS, TCP and TLS
 * handshakes, the WebSocket upgrade): the first request on a connection waits `delayMs`, a request
 * on a kept-alive connection does not. Default 0 (the fakes answer at once).
 */
export function connectionDelay(delayMs: number | undefined): (request: IncomingMessage) => Promise<void> {
  const served = new WeakSet<Socket>();
  return async (request) => {
    const socket = request.socket;
    if (!delayMs || served.has(socket)) return;
    served.add(socket);
    await sleep(delayMs);
  };
}
