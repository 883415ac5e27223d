import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keepLocalDataPrivate } from '../../local/private-files.ts';
import { OutboundRequestError } from '../../shared/net/guarded-fetch.ts';
import type { ToolRecord } from '../../shared/repositories/agent-resources.ts';
import { callTool, sealToolHeaders, TOOL_CALL_TIMEOUT_MS } from '../../shared/services/tool-calls.ts';

describe('agent tools: headers sealed at rest, calls through the SSRF guard', () => {
  let server: Server;
  let port: number;
  const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body });
        const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"booked":true}');
        if (request.url?.startsWith('/slow')) setTimeout(answer, TOOL_CALL_TIMEOUT_MS + 1000).unref();
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    delete process.env.KMS_KEY_ID;
    process.env.LOCAL_ENCRYPTION_KEY = randomBytes(32).toString('base64url');
    process.env.OUTBOUND_ALLOW_LOOPBACK = 'true';
    seen.length = 0;
  });

  const tool = async (url: string, method: string, orgId = 1): Promise<ToolRecord> => ({
    id: 'tool_AAAAAAAAAAAAAAAA',
    workflow_id: 1,
    name: 'book_visit',
    description: 'Books',
    method,
    url,
    parameters: {},
    created_at: new Date().toISOString(),
    ...(await sealToolHeaders(orgId, 'tool_AAAAAAAAAAAAAAAA', { Authorization: 'Bearer tool-secret-42' })),
  });

  it('stores only the header names in the clear', async () => {
    const sealed = await sealToolHeaders(1, 'tool_AAAAAAAAAAAAAAAA', { Authorization: 'Bearer tool-secret-42' });
    expect(sealed.header_names).toEqual(['Authorization']);
    expect(sealed.headers_ciphertext).toMatch(/^local:/);
    expect(sealed.headers_ciphertext).not.toContain('tool-secret-42');
    expect(await sealToolHeaders(1, 'tool_AAAAAAAAAAAAAAAA', {})).toEqual({
      header_names: [],
      headers_ciphertext: null,
    });
  });

  it('sends the decrypted headers and the arguments (query for GET, JSON body otherwise)', async () => {
    expect(
      await callTool(1, await tool(`http://127.0.0.1:${port}/slots`, 'GET'), { date: '2026-12-01', slot: 3 }),
    ).toEqual({ status: 200, body: '{"booked":true}' });
    expect(await callTool(1, await tool(`http://127.0.0.1:${port}/visits`, 'POST'), { date: '2026-12-01' })).toEqual({
      status: 200,
      body: '{"booked":true}',
    });
    expect(seen).toEqual([
      { method: 'GET', url: '/slots?date=2026-12-01&slot=3', authorization: 'Bearer tool-secret-42', body: '' },
      { method: 'POST', url: '/visits', authorization: 'Bearer tool-secret-42', body: '{"date":"2026-12-01"}' },
    ]);
  });

  it('gives up on a tool that has not answered in 5 s: a caller is waiting on the line', async () => {
    const started = Date.now();
    await expect(callTool(1, await tool(`http://127.0.0.1:${port}/slow`, 'GET'), {})).rejects.toMatchObject({
      reason: 'timeout',
      message: expect.stringContaining('did not answer within 5 s'),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
    expect(Date.now() - started).toBeLessThan(TOOL_CALL_TIMEOUT_MS + 1000);
  }, 10_000);

  it("refuses another organization's ciphertext", async () => {
    const foreign = await tool(`http://127.0.0.1:${port}/visits`, 'POST', 2);
    await expect(callTool(1, foreign, {})).rejects.toThrow();
    expect(seen).toEqual([]);
  });

  it('refuses private addresses at call time, and loopback without the local allowance', async () => {
    await expect(callTool(1, await tool('https://10.0.0.1/visits', 'POST'), {})).rejects.toBeInstanceOf(
      OutboundRequestError,
    );
    await expect(callTool(1, await tool('https://[fd00::1]/visits', 'POST'), {})).rejects.toBeInstanceOf(
      OutboundRequestError,
    );
    process.env.OUTBOUND_ALLOW_LOOPBACK = 'false';
    await expect(callTool(1, await tool(`https://127.0.0.1:${port}/visits`, 'POST'), {})).rejects.toMatchObject({
      reason: 'refused',
    });
    expect(seen).toEqual([]);
  });
});

describe('local data files are private', () => {
  it('makes existing files 0600 and folders 0700, and new files 0600', () => {
    const root = mkdtempSync(join(tmpdir(), 'vap-private-'));
    const previousUmask = process.umask();
    try {
      const dataDir = join(root, '.local-data');
      mkdirSync(join(dataDir, 'dynamodb'), { recursive: true, mode: 0o755 });
      writeFileSync(join(dataDir, 'secrets.json'), '{}');
      writeFileSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'), '');
      chmodSync(join(dataDir, 'secrets.json'), 0o644);
      chmodSync(join(dataDir, 'dynamodb', 'shared-local-instance.db'), 0o664);
      keepLocalDataPrivate(dataDir);
      const mode = (path: string) => statSync(join(dataDir, path)).mode & 0o777;
      expect([mode(''), mode('dynamodb'), mode('secrets.json'), mode('dynamodb/shared-local-instance.db')]).toEqual([
        0o700, 0o700, 0o600, 0o600,
      ]);
      writeFileSync(join(dataDir, 'later.json'), '{}');
      expect(mode('later.json')).toBe(0o600);
    } finally {
      process.umask(previousUmask);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
