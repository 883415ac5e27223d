import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';

/**
 * Tools stored before tool headers were encrypted at rest hold `headers` in the clear. Reads accept
 * that shape until the operator migration (`npm run admin -- tools encrypt-headers`) seals them.
 */
describe.skipIf(needsLocalStack)('tools with plaintext headers (stored before encryption at rest)', () => {
  const api = apiClient();
  let org: TestOrganization;
  let agent: { id: number; public_id: string };
  let endpoint: ReturnType<typeof createServer>;
  let endpointUrl: string;
  const received: IncomingHttpHeaders[] = [];
  let modules: {
    repository: typeof import('../../shared/repositories/agent-resources.ts');
    toolCalls: typeof import('../../shared/services/tool-calls.ts');
    table: typeof import('../../shared/repositories/table.ts');
    keys: typeof import('../../shared/repositories/keys.ts');
  };

  beforeAll(async () => {
    Object.assign(process.env, inject('stackEnv'));
    modules = {
      repository: await import('../../shared/repositories/agent-resources.ts'),
      toolCalls: await import('../../shared/services/tool-calls.ts'),
      table: await import('../../shared/repositories/table.ts'),
      keys: await import('../../shared/repositories/keys.ts'),
    };
    org = await newOrganization('Legacy tools');
    agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Legacy' } })).body;
    endpoint = createServer((request, response) => {
      received.push(request.headers);
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/crm`;
  });
  afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));

  /** A tool item as the release before encryption at rest wrote it. */
  async function putLegacyTool(id: string, headers: Record<string, string>): Promise<void> {
    await modules.table.db().send(
      new PutCommand({
        TableName: modules.table.tableName(),
        Item: {
          ...modules.keys.keys.tool(org.organizationId, agent.id, id),
          type: 'tool',
          id,
          workflow_id: agent.id,
          name: id,
          description: 'Looks a customer up',
          method: 'POST',
          url: endpointUrl,
          headers,
          parameters: { properties: {} },
          created_at: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
  }
  const rawItem = async (id: string) =>
    (
      await modules.table.db().send(
        new GetCommand({
          TableName: modules.table.tableName(),
          Key: modules.keys.keys.tool(org.organizationId, agent.id, id),
        }),
      )
    ).Item!;
  const call = async (id: string) => {
    const tool = (await modules.repository.getTool(org.organizationId, agent.id, id))!;
    await modules.toolCalls.callTool(org.organizationId, tool, { q: 'x' }, fetch);
    return received.at(-1)!;
  };

  it('reads the old shape, migrates it once with conditional updates, and keeps calls working', async () => {
    await putLegacyTool('tool_legacyCrm0000001', { Authorization: 'Bearer legacy-secret-1', 'X-Tenant': 't1' });
    await putLegacyTool('tool_legacyCrm0000002', { 'X-Api-Key': 'legacy-secret-2' });
    await putLegacyTool('tool_legacyNoHeaders0', {});

    // Before the migration: the API shows header names only, calls send the stored headers.
    const shown = await api.request('GET', `/agents/${agent.public_id}/tools/tool_legacyCrm0000001`, { key: org.key });
    expect(shown.status).toBe(200);
    expect(shown.body.headers).toEqual({ Authorization: '********', 'X-Tenant': '********' });
    expect(shown.text).not.toContain('legacy-secret');
    const listed = await api.request('GET', `/agents/${agent.public_id}/tools`, { key: org.key });
    expect(listed.text).not.toContain('legacy-secret');
    expect((await call('tool_legacyCrm0000001')).authorization).toBe('Bearer legacy-secret-1');

    // Two operators run the migration at once: every tool is sealed exactly once.
    const runs = await Promise.all([
      modules.toolCalls.encryptPlaintextToolHeaders(),
      modules.toolCalls.encryptPlaintextToolHeaders(),
    ]);
    expect(runs[0]!.encrypted + runs[1]!.encrypted).toBe(3);
    for (const run of runs) expect(run.found).toBe(run.encrypted + run.skipped);

    for (const id of ['tool_legacyCrm0000001', 'tool_legacyCrm0000002']) {
      const item = await rawItem(id);
      expect(item.headers).toBeUndefined();
      expect(item.headers_ciphertext).toMatch(/^local:/);
      expect(JSON.stringify(item)).not.toContain('legacy-secret');
    }
    expect(await rawItem('tool_legacyNoHeaders0')).toMatchObject({ header_names: [], headers_ciphertext: null });
    expect(await rawItem('tool_legacyCrm0000002')).toMatchObject({ header_names: ['X-Api-Key'] });
    // The sealed headers are the same headers.
    expect((await call('tool_legacyCrm0000001')).authorization).toBe('Bearer legacy-secret-1');
    expect((await call('tool_legacyCrm0000002'))['x-api-key']).toBe('legacy-secret-2');
    expect(
      (await api.request('GET', `/agents/${agent.public_id}/tools/tool_legacyCrm0000002`, { key: org.key })).body
        .headers,
    ).toEqual({ 'X-Api-Key': '********' });

    // Idempotent: a rerun finds nothing left to do.
    expect(await modules.toolCalls.encryptPlaintextToolHeaders()).toEqual({ found: 0, encrypted: 0, skipped: 0 });
  });

  it('does not overwrite a tool that changed after it was read', async () => {
    await putLegacyTool('tool_legacyStale00001', { Authorization: 'Bearer old' });
    const stale = (await modules.repository.getTool(org.organizationId, agent.id, 'tool_legacyStale00001'))!;
    expect(stale.plaintext_headers).toEqual({ Authorization: 'Bearer old' });
    // Meanwhile its headers were replaced (still in the old shape).
    await putLegacyTool('tool_legacyStale00001', { Authorization: 'Bearer new' });
    const sealedStale = await modules.toolCalls.sealToolHeaders(org.organizationId, stale.id, stale.plaintext_headers!);
    expect(
      await modules.repository.sealPlaintextToolHeaders(
        org.organizationId,
        { ...stale, plaintext_headers: stale.plaintext_headers! },
        sealedStale,
      ),
    ).toBe(false);
    expect((await rawItem('tool_legacyStale00001')).headers).toEqual({ Authorization: 'Bearer new' });
    // The migration seals what is there now.
    expect((await modules.toolCalls.encryptPlaintextToolHeaders()).encrypted).toBe(1);
    expect((await call('tool_legacyStale00001')).authorization).toBe('Bearer new');
  });
});
