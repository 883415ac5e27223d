import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

const api = apiClient();
let org: TestOrganization;
let agentId: string;

beforeAll(async () => {
  org = await newOrganization('Conformance');
  agentId = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Conformance' } })).body.public_id;
});

describe('spec conformance of validation and statuses', () => {
  it('401 says how to authenticate, also to a client sending a Bearer token', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${org.key}` },
      { 'X-API-Key': 'vap_unknown_key' },
    ];
    for (const headers of attempts) {
      const { status, body } = await api.request('GET', '/agents', { headers });
      expect(status).toBe(401);
      expect(body.detail).toContain('X-API-Key header');
      expect(body.detail).toContain('Authorization: Bearer header is not read');
    }
  });

  it('a missing enum-typed field is `missing` / "Field required"', async () => {
    const { status, body } = await api.request('POST', `/agents/${agentId}/conversations`, { key: org.key, body: {} });
    expect(status).toBe(422);
    expect(body.detail).toEqual([{ type: 'missing', loc: ['body', 'mode'], msg: 'Field required', input: {} }]);
    const purchase = await api.request('POST', '/phone-numbers/marketplace/purchase', {
      key: org.key,
      body: { phone_number: '+48601234567', country_code: 'PL', end_user_id: 1 },
    });
    expect(purchase.body.detail).toContainEqual({
      type: 'missing',
      loc: ['body', 'number_type'],
      msg: 'Field required',
      input: expect.any(Object),
    });
  });

  it("POST /campaigns `workflow_id` is the spec integer (a public id is accepted too): its errors are the integer field's", async () => {
    const contacts = { source_type: 'manual', manual_contacts: [{ phone_number: '+48601234567' }] };
    const cases: [unknown, string, string][] = [
      ['abc', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
      [1.5, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part'],
      [true, 'int_type', 'Input should be a valid integer'],
    ];
    for (const [workflowId, type, msg] of cases) {
      const { status, body } = await api.request('POST', '/campaigns', {
        key: org.key,
        body: { name: 'Spring', workflow_id: workflowId, ...contacts },
      });
      expect(status).toBe(422);
      expect(body.detail).toEqual([{ type, loc: ['body', 'workflow_id'], msg, input: workflowId }]);
    }
    const byPublicId = await api.request('POST', '/campaigns', {
      key: org.key,
      body: { name: 'Spring', workflow_id: agentId, ...contacts },
    });
    expect(byPublicId.status).toBe(200); // the spec gives POST /campaigns a body and no status
  });

  it('query and path values in a 422 are the strings received', async () => {
    const { body } = await api.request('GET', `/agents/${agentId}/conversations/0/recording?expires_in=10`, {
      key: org.key,
    });
    expect(body.detail.map((item: { loc: unknown; input: unknown }) => [item.loc, item.input])).toEqual([
      [['path', 'conversation_id'], '0'],
      [['query', 'expires_in'], '10'],
    ]);
  });

  it('answers 200 where the spec gives a body but no status; POST /agents stays 201', async () => {
    expect(
      (await api.request('POST', `/agents/${agentId}/conversations`, { key: org.key, body: { mode: 'chat' } })).status,
    ).toBe(200);
    const fromTemplate = await api.request('POST', '/agents/from-template', {
      key: org.key,
      body: {
        template_id: 'dental-reminders',
        variables: { clinic_name: 'Smile' },
        language: 'en',
        agent_name: 'From template',
      },
    });
    expect(fromTemplate.status).toBe(200);
    expect((await api.request('POST', '/agents', { key: org.key, body: { name: 'Plain' } })).status).toBe(201);
    const documented = (await api.request('GET', '/public-openapi.json')).body.paths;
    for (const [path, method] of [
      ['/agents/{agent_id}/conversations', 'post'],
      ['/agents/from-template', 'post'],
      ['/agents/from-script', 'post'],
    ] as const) {
      expect(Object.keys(documented[path][method].responses), path).toContain('200');
      expect(Object.keys(documented[path][method].responses), path).not.toContain('201');
    }
  });

  it('a JSON body sent with another Content-Type is a 422 that says so', async () => {
    const { status, body } = await api.request('POST', '/agents', {
      key: org.key,
      headers: { 'Content-Type': 'text/plain' },
      body: '{"name": "x"}',
    });
    expect(status).toBe(422);
    expect(body.detail).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: '{"name": "x"}',
        ctx: { error: "the body was sent as 'text/plain', not read as JSON: send Content-Type: application/json" },
      },
    ]);
  });
});
