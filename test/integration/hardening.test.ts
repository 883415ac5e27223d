import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, MAX_REQUEST_BYTES } from '../../shared/api/gateway.ts';
import { MAX_JSON_DEPTH, MAX_LIST_BODY_BYTES } from '../../shared/http/json-limits.ts';
import { AGENT_OBJECT_CAPS } from '../../shared/schemas/agents.ts';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Hardening');
});

describe('bad input never gives a 5xx', () => {
  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'GET /public-docs/%s is a 404',
    async (asset) => {
      const { status, body } = await api.request('GET', `/public-docs/${asset}`);
      expect(status).toBe(404);
      expect(body).toEqual({ detail: 'Not Found' });
    },
  );

  it('prototype names as query parameters and headers are plain names', async () => {
    const response = await api.request('GET', '/agents?__proto__=1&constructor=2&toString=3', {
      key: org.key,
      headers: { constructor: 'x' },
    });
    expect(response.status).toBe(200);
  });

  it.each([
    [
      '{"name": "x", "workflow_configurations": {"constructor": {"name": "Boolean"}}}',
      ['body', 'workflow_configurations', 'constructor'],
    ],
    [
      '{"name": "x", "initial_context": {"a": [{"__proto__": {"polluted": true}}]}}',
      ['body', 'initial_context', 'a', 0, '__proto__'],
    ],
  ])('a reserved key in a free-form object is a 422 at its place, not a 500: %s', async (body, loc) => {
    const { status, body: answer } = await api.request('POST', '/agents', { key: org.key, body });
    expect(status).toBe(422);
    expect(answer.detail).toEqual([
      {
        type: 'value_error',
        loc,
        msg: `Value error, the key '${loc.at(-1)}' is reserved`,
        input: expect.anything(),
        ctx: { error: `the key '${loc.at(-1)}' is reserved` },
      },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a body over 10 MB is a 413 {detail}, not a reset connection', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(MAX_REQUEST_BYTES + 10) });
    const { status, body: answer } = await api.request('POST', '/agents', { key: org.key, body });
    expect(status).toBe(413);
    expect(answer).toEqual({ detail: 'Request Entity Too Large' });
  });

  it('a body under 10 MB whose Lambda event would pass 6 MB is a 413 locally (API Gateway cannot hand it to Lambda)', async () => {
    const body = JSON.stringify({ name: 'x', workflow_definition: { text: 'x'.repeat(7 * 1024 * 1024) } });
    const { status, body: answer } = await api.request('POST', '/agents', { key: org.key, body });
    expect(status).toBe(413);
    expect(answer).toEqual({ detail: 'Request Entity Too Large' });
  });

  it("refuses an upload that cannot fit a Lambda event once base64-encoded with 413, as the stack's web ACL does", async () => {
    const boundary = 'xBOUNDARYx';
    const { status, body } = await api.request('POST', '/agent-templates/extract-text', {
      key: org.key,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(MAX_BODY_BYTES.binary)}\r\n--${boundary}--\r\n`,
    });
    expect(status).toBe(413);
    expect(body).toEqual({ detail: 'Request Entity Too Large' });
  });

  it('a text body under its limit reaches the function (its own caps answer)', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES.text - 100) });
    const { status, body: answer } = await api.request('POST', '/agents', { key: org.key, body });
    expect(status).toBe(422);
    expect(answer.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['body', 'name'] });
  });

  it('a truncated multipart upload is a 422 and the stack keeps serving', async () => {
    const boundary = 'xBOUNDARYx';
    const { status, body } = await api.request('POST', '/agent-templates/extract-text', {
      key: org.key,
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello`,
    });
    expect(status).toBe(422);
    expect(body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body'] });
    expect((await api.request('GET', '/agents', { key: org.key })).status).toBe(200);
  });
});

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { k: value };
  return value;
};

describe('nesting and size limits', () => {
  it('a free-form object nested past 32 levels (the body being the first, as the item is in DynamoDB) is a 422 with the loc of the first level too deep', async () => {
    const ok = await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Deep', workflow_configurations: nested(MAX_JSON_DEPTH - 1) },
    });
    expect(ok.status).toBe(201);
    const { status, body } = await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Deep', workflow_configurations: nested(MAX_JSON_DEPTH) },
    });
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'workflow_configurations', ...Array(MAX_JSON_DEPTH - 1).fill('k')],
        msg: 'Value error, nested deeper than 32 levels',
        input: { k: 'leaf' },
        ctx: { error: 'nested deeper than 32 levels' },
      },
    ]);
  });

  it('a body nested 100,000 levels deep is a 422, not a stack overflow', async () => {
    const body = `{"name": "x", "initial_context": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const response = await api.request('POST', '/agents', { key: org.key, body });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({
      type: 'value_error',
      loc: ['body', 'initial_context', ...Array(MAX_JSON_DEPTH - 1).fill(0)],
    });
  });

  it('an agent definition over its stored-size cap is a 422 on the field, not a 500', async () => {
    const workflow_definition = { prompt: 'x'.repeat(AGENT_OBJECT_CAPS.workflow_definition) };
    const { status, body } = await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Big', workflow_definition },
    });
    expect(status).toBe(422);
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({
      type: 'value_error',
      loc: ['body', 'workflow_definition'],
      ctx: { error: 'at most 200000 bytes when stored' },
    });
    // The echoed input is abbreviated: the answer stays small.
    expect(JSON.stringify(body).length).toBeLessThan(10_000);
  });

  it('the largest agent every field allows is stored and listed', async () => {
    const fill = (bytes: number) => ({ text: 'y'.repeat(bytes - 20) });
    const created = await api.request('POST', '/agents', {
      key: org.key,
      body: {
        name: 'n'.repeat(255),
        workflow_definition: fill(AGENT_OBJECT_CAPS.workflow_definition),
        workflow_configurations: fill(AGENT_OBJECT_CAPS.workflow_configurations),
        template_context_variables: fill(AGENT_OBJECT_CAPS.template_context_variables),
        call_disposition_codes: fill(AGENT_OBJECT_CAPS.call_disposition_codes),
      },
    });
    expect(created.status).toBe(201);
    expect((await api.request('GET', `/agents/${created.body.public_id}`, { key: org.key })).status).toBe(200);
  });
});

describe("no response above Lambda's 6 MB", () => {
  it('GET /agents leaves out agents past 5 MB, says so, and links to the rest', { timeout: 120_000 }, async () => {
    const big = await newOrganization('Big agents');
    const fill = (bytes: number) => ({ text: 'y'.repeat(bytes - 20) });
    const created: number[] = [];
    for (let i = 0; i < 17; i++) {
      const response = await api.request('POST', '/agents', {
        key: big.key,
        body: {
          name: `Big ${i}`,
          workflow_definition: fill(AGENT_OBJECT_CAPS.workflow_definition),
          workflow_configurations: fill(AGENT_OBJECT_CAPS.workflow_configurations),
          template_context_variables: fill(AGENT_OBJECT_CAPS.template_context_variables),
          call_disposition_codes: fill(AGENT_OBJECT_CAPS.call_disposition_codes),
        },
      });
      expect(response.status).toBe(201);
      created.push(response.body.id);
    }
    const first = await api.request('GET', '/agents', { key: big.key });
    expect(first.status).toBe(200);
    expect(first.text.length).toBeLessThanOrEqual(MAX_LIST_BODY_BYTES);
    expect(first.headers.get('x-truncated')).toBe('true');
    expect(first.headers.get('x-total-count')).toBe('17');
    const count = first.body.length;
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(17);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(link).toBe(`${api.baseUrl}/agents?page=2&limit=${count}`);
    const rest = await api.request('GET', link!.slice(api.baseUrl.length), { key: big.key });
    expect([...first.body, ...rest.body].map((agent: { id: number }) => agent.id).slice(0, 2 * count)).toEqual(
      created.slice(0, Math.min(17, 2 * count)),
    );

    const paged = await api.request('GET', '/agents?page=1&limit=100', { key: big.key });
    expect(paged.text.length).toBeLessThanOrEqual(MAX_LIST_BODY_BYTES);
    expect(paged.headers.get('x-truncated')).toBe('true');
    expect(paged.headers.get('x-total-count')).toBe('17');
  });

  it(
    'a page of runs whose contexts would pass 5 MB keeps the runs that fit, flagged X-Truncated',
    { timeout: 120_000 },
    async () => {
      const own = await newOrganization('Big runs');
      const context = { text: 'c'.repeat(31_000) };
      const agent = await api.request('POST', '/agents', {
        key: own.key,
        body: { name: 'Runs', template_context_variables: context },
      });
      for (let i = 0; i < 90; i++) {
        const run = await api.request('POST', `/agents/${agent.body.public_id}/conversations`, {
          key: own.key,
          body: { mode: 'chat', initial_context: { other: 'i'.repeat(31_000) } },
        });
        expect(run.status).toBe(200);
      }
      const page = await api.request('GET', `/agents/${agent.body.public_id}/conversations?limit=100`, {
        key: own.key,
      });
      expect(page.status).toBe(200);
      expect(page.text.length).toBeLessThanOrEqual(MAX_LIST_BODY_BYTES);
      expect(page.headers.get('x-truncated')).toBe('true');
      expect(page.body).toMatchObject({ page: 1, limit: 100, total_count: 90, total_pages: 1 });
      expect(page.body.items.length).toBeGreaterThan(50);
      expect(page.body.items.length).toBeLessThan(90);
    },
  );
});
