/**
 * The media service: `/healthz` for the load balancer and `/media`, the Media Streams WebSocket the
 * telephony provider connects each answered call to. The same code runs in the Fargate task and,
 * in process, in the local stack.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCallSession, saveCall, type CallProviders } from './call-sessions.ts';
import { MAX_CALL_SECONDS } from '../../shared/domain/call-limits.ts';
import { MEDIA_STREAM_SECRET_VARIABLE } from '../../shared/telephony/stream-token.ts';
import { admitStream } from './stream-admission.ts';
import { attachMediaStreams } from './streams/websocket-server.ts';
import type { LogFn } from './streams/media-session.ts';

export const MEDIA_STREAM_PATH = '/media';

export interface MediaService {
  port: number;
  close: () => Promise<void>;
}

export async function startMediaService(options: { port: number; host?: string; providers: CallProviders; log: LogFn }): Promise<MediaService> {
  // Streams are admitted only with credentials signed with this key: refuse to start without it.
  if (!process.env[MEDIA_STREAM_SECRET_VARIABLE]) throw new Error(`Missing required environment variable ${MEDIA_STREAM_SECRET_VARIABLE}`);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const healthy = path === '/healthz' && (request.method === 'GET' || request.method === 'HEAD');
    response.writeHead(healthy ? 200 : 404, { 'Content-Type': 'application/json' });
    response.end(request.method === 'HEAD' ? undefined : JSON.stringify(healthy ? { status: 'ok' } : { detail: 'Not Found' }));
  });
  const streams = attachMediaStreams(server, MEDIA_STREAM_PATH, (send) => createCallSession(options.providers, send, options.log), saveCall, {
    admit: (claim) => admitStream(claim),
    maxCallSeconds: MAX_CALL_SECONDS,
    log: options.log,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await streams.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
