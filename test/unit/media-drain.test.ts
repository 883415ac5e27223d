import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { LocalSecretsManager } from '../../local/secrets-manager.ts';
import { useLocalSecretsManager } from '../support/secrets.ts';
import { startFakeVoiceProviders, type FakeVoiceProviders } from '../../local/fakes/voice-providers.ts';
import { platformProviders } from '../../media/src/agent/providers.ts';
import { HEALTH_PATH, MEDIA_STREAM_PATH } from '../../media/src/deployment.ts';
import { startMediaService, type MediaService } from '../../media/src/service.ts';
import { NO_TELEMETRY } from '../../media/src/telemetry/turn-telemetry.ts';

let service: MediaService | undefined;
let fakes: FakeVoiceProviders | undefined;
let secretsManager: LocalSecretsManager | undefined;
/** The stream credentials' key, read at start from (the local stand-in of) Secrets Manager, as in the task. */
beforeAll(async () => {
  secretsManager = await useLocalSecretsManager({ 'media-streams': 'unit-test-stream-key' });
  process.env.MEDIA_STREAM_SECRET_ARN = secretsManager.arns['media-streams'];
});
afterAll(() => secretsManager?.stop());
afterEach(async () => {
  await service?.close();
  await fakes?.stop();
  service = undefined;
  fakes = undefined;
});

async function start(): Promise<MediaService> {
  fakes = await startFakeVoiceProviders();
  service = await startMediaService({
    port: 0,
    host: '127.0.0.1',
    calls: { providers: platformProviders(fakes.settings, fakes.readKeys), settings: fakes.settings },
    log: () => {},
    telemetry: NO_TELEMETRY,
  });
  return service;
}

/** A provider connection that never sends `start`: nothing of it is saved, so no AWS is needed. */
async function openStream(port: number): Promise<WebSocket> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${MEDIA_STREAM_PATH}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/** The HTTP status of a WebSocket upgrade, or 101 when it is accepted. */
function upgradeStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${MEDIA_STREAM_PATH}`);
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('error', () => {});
  });
}

const health = async (port: number) => (await fetch(`http://127.0.0.1:${port}${HEALTH_PATH}`)).status;
const closed = (socket: WebSocket) =>
  new Promise<void>((resolve) =>
    socket.readyState === WebSocket.CLOSED ? resolve() : socket.once('close', () => resolve()),
  );

describe('media service drain (SIGTERM)', () => {
  it('fails the health check and refuses new streams at once, and waits for the calls in progress to end', async () => {
    const media = await start();
    const call = await openStream(media.port);
    await expect.poll(() => media.activeCalls).toBe(1);
    expect(await health(media.port)).toBe(200);

    const drained = media.drain(30_000);
    expect(await health(media.port)).toBe(503);
    expect(await upgradeStatus(media.port)).toBe(503);
    expect(call.readyState).toBe(WebSocket.OPEN);

    const started = Date.now();
    call.close();
    await drained;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(media.activeCalls).toBe(0);
    service = undefined;
  });

  it('closes the calls still running when the drain time is up', async () => {
    const media = await start();
    const call = await openStream(media.port);
    await expect.poll(() => media.activeCalls).toBe(1);
    const started = Date.now();
    await media.drain(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await closed(call);
    expect(media.activeCalls).toBe(0);
    service = undefined;
  });

  it('refuses to start without its stream credential key, naming what is missing', async () => {
    const arn = process.env.MEDIA_STREAM_SECRET_ARN;
    delete process.env.MEDIA_STREAM_SECRET_ARN;
    try {
      await expect(start()).rejects.toThrow(/MEDIA_STREAM_SECRET_ARN/);
    } finally {
      process.env.MEDIA_STREAM_SECRET_ARN = arn;
    }
    process.env.MEDIA_STREAM_SECRET_ARN = `${arn}-deleted`;
    try {
      await expect(start()).rejects.toThrow(/find the specified secret/);
    } finally {
      process.env.MEDIA_STREAM_SECRET_ARN = arn;
    }
    service = undefined;
  });
});
