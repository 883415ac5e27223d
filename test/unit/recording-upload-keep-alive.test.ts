import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A call's recording goes to S3 streamed from the media task's disk, and the SDK retries no
// request whose body is a stream ("a non-retryable streaming request"). S3 (s3rver locally, a Node
// server closing an idle kept-alive connection after 5 s) may have closed the connection the
// upload goes out on: a call ending about 5 s after the previous one's upload met that, its run
// stayed in progress and held the organization's channel (voice-agent.test.ts, the next calls 429).
let server: Server;
let dir: string;
let file: string;
const puts: number[] = [];

beforeAll(async () => {
  // The first request on a connection is answered and the connection kept; a later one finds it
  // closed, as when the server's keep-alive timeout ends it just as the upload goes out.
  const requests = new WeakMap<object, number>();
  server = createServer((request, response) => {
    const count = (requests.get(request.socket) ?? 0) + 1;
    requests.set(request.socket, count);
    if (count > 1) return void request.socket.destroy();
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      puts.push(bytes);
      response.writeHead(200, { ETag: '"etag"' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: 'test-table',
    BUCKET_NAME: 'test-bucket',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    S3_FORCE_PATH_STYLE: 'true',
  });
  dir = await mkdtemp(join(tmpdir(), 'recording-keep-alive-'));
  file = join(dir, 'recording.wav');
  await writeFile(file, Buffer.alloc(3200, 0x7f));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('a recording uploaded from disk over a kept-alive connection', () => {
  it('is stored when the connection it went out on had been closed by S3', async () => {
    const { putRunFileFromDisk } = await import('../../shared/repositories/run-files.ts');
    const key = 'runs/org-1/agent-2/run-3/recording.wav';
    await putRunFileFromDisk(key, file, 3200, 'audio/wav');
    await putRunFileFromDisk(key, file, 3200, 'audio/wav');
    expect(puts).toEqual([3200, 3200]);
  });
});
