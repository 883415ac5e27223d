import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJsonBody } from '../../shared/http/json-body.ts';
import { parseRequest } from '../../shared/http/request.ts';
import { RequestValidationError, type ValidationErrorItem } from '../../shared/http/validation-error.ts';
import { defineRoute } from '../../shared/api/route.ts';
import { CreateCampaignRequest } from '../../shared/schemas/campaigns.ts';
import type { APIGatewayProxyEvent } from 'aws-lambda';

const RetryConfig = z.object({
  enabled: z.boolean().default(true),
  max_retries: z.int().gte(0).lte(5).default(1),
});
const Body = z.object({
  name: z.string().min(1).max(255),
  goal: z.string().max(64).nullable().optional(),
  source_type: z.string().regex(/^(csv|manual)$/),
  mode: z.enum(['webrtc', 'smallwebrtc', 'chat']).optional(),
  contacts: z
    .array(z.object({ phone_number: z.string().min(1), first_name: z.string().default('') }))
    .nullable()
    .optional(),
  source_config: z.record(z.string(), z.unknown()).nullable().optional(),
  retry_config: RetryConfig.nullable().optional(),
  refresh: z.int().gte(5).lte(10080).nullable().optional(),
});

const route = defineRoute({
  operationId: 'test',
  method: 'POST',
  path: '/things/{thing_id}',
  group: 'test',
  summary: 'test',
  description: 'A route of this test.',
  tags: [],
  request: {
    params: z.object({ thing_id: z.int() }),
    query: z.object({ expires_in: z.int().gte(60).lte(86400).default(3600), verbose: z.boolean().default(false) }),
    body: Body,
  },
  responses: {},
});

function event(body: string | null, overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    body,
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/api/v1/things/1',
    pathParameters: { thing_id: '1' },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/api/v1/things/{thing_id}',
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

function errorsOf(e: APIGatewayProxyEvent): ValidationErrorItem[] {
  try {
    parseRequest(route, e);
  } catch (error) {
    if (error instanceof RequestValidationError) return error.items;
    throw error;
  }
  throw new Error('expected a validation error');
}

const valid = { name: 'Spring', source_type: 'csv' };

describe('FastAPI 422 items from zod', () => {
  it.each<[string, unknown, ValidationErrorItem]>([
    [
      'missing field',
      { source_type: 'csv' },
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: { source_type: 'csv' } },
    ],
    [
      'not a string',
      { ...valid, name: 5 },
      { type: 'string_type', loc: ['body', 'name'], msg: 'Input should be a valid string', input: 5 },
    ],
    [
      'too short',
      { ...valid, name: '' },
      {
        type: 'string_too_short',
        loc: ['body', 'name'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
    [
      'too long',
      { ...valid, goal: 'x'.repeat(65) },
      {
        type: 'string_too_long',
        loc: ['body', 'goal'],
        msg: 'String should have at most 64 characters',
        input: 'x'.repeat(65),
        ctx: { max_length: 64 },
      },
    ],
    [
      'pattern',
      { ...valid, source_type: 'fax' },
      {
        type: 'string_pattern_mismatch',
        loc: ['body', 'source_type'],
        msg: "String should match pattern '^(csv|manual)$'",
        input: 'fax',
        ctx: { pattern: '^(csv|manual)$' },
      },
    ],
    [
      'literal',
      { ...valid, mode: 'sip' },
      {
        type: 'literal_error',
        loc: ['body', 'mode'],
        msg: "Input should be 'webrtc', 'smallwebrtc' or 'chat'",
        input: 'sip',
        ctx: { expected: "'webrtc', 'smallwebrtc' or 'chat'" },
      },
    ],
    [
      'below minimum',
      { ...valid, refresh: 4 },
      {
        type: 'greater_than_equal',
        loc: ['body', 'refresh'],
        msg: 'Input should be greater than or equal to 5',
        input: 4,
        ctx: { ge: 5 },
      },
    ],
    [
      'above maximum (nested)',
      { ...valid, retry_config: { max_retries: 6 } },
      {
        type: 'less_than_equal',
        loc: ['body', 'retry_config', 'max_retries'],
        msg: 'Input should be less than or equal to 5',
        input: 6,
        ctx: { le: 5 },
      },
    ],
    [
      'int from float',
      { ...valid, refresh: 7.5 },
      {
        type: 'int_from_float',
        loc: ['body', 'refresh'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 7.5,
      },
    ],
    [
      'int from bad string',
      { ...valid, refresh: 'soon' },
      {
        type: 'int_parsing',
        loc: ['body', 'refresh'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'soon',
      },
    ],
    [
      'int type',
      { ...valid, refresh: [1] },
      { type: 'int_type', loc: ['body', 'refresh'], msg: 'Input should be a valid integer', input: [1] },
    ],
    [
      'bool parsing',
      { ...valid, retry_config: { enabled: 'maybe' } },
      {
        type: 'bool_parsing',
        loc: ['body', 'retry_config', 'enabled'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      },
    ],
    [
      'bool type',
      { ...valid, retry_config: { enabled: [] } },
      {
        type: 'bool_type',
        loc: ['body', 'retry_config', 'enabled'],
        msg: 'Input should be a valid boolean',
        input: [],
      },
    ],
    [
      'dict type',
      { ...valid, source_config: 'x' },
      { type: 'dict_type', loc: ['body', 'source_config'], msg: 'Input should be a valid dictionary', input: 'x' },
    ],
    [
      'model type',
      { ...valid, retry_config: 3 },
      {
        type: 'model_attributes_type',
        loc: ['body', 'retry_config'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: 3,
      },
    ],
    [
      'list type',
      { ...valid, contacts: 'x' },
      { type: 'list_type', loc: ['body', 'contacts'], msg: 'Input should be a valid list', input: 'x' },
    ],
    [
      'list index in loc',
      { ...valid, contacts: [{ first_name: 'Ann' }] },
      {
        type: 'missing',
        loc: ['body', 'contacts', 0, 'phone_number'],
        msg: 'Field required',
        input: { first_name: 'Ann' },
      },
    ],
  ])('%s', (_name, body, expected) => {
    expect(errorsOf(event(JSON.stringify(body)))).toEqual([expected]);
  });

  it('accepts lax inputs like Pydantic: numeric strings for ints, words for booleans, null for optional', () => {
    const input = parseRequest(
      route,
      event(JSON.stringify({ ...valid, refresh: '10', goal: null, retry_config: { enabled: 'no' } })),
    );
    expect(input.body).toMatchObject({ refresh: 10, goal: null, retry_config: { enabled: false, max_retries: 1 } });
  });

  it('reports one item per field, every field, in field order', () => {
    const items = errorsOf(event(JSON.stringify({ name: '', source_type: 'x'.repeat(300), refresh: 1 })));
    expect(items.map((item) => item.loc)).toEqual([
      ['body', 'name'],
      ['body', 'source_type'],
      ['body', 'refresh'],
    ]);
  });

  it('body absent → missing at ["body"] with input null', () => {
    expect(errorsOf(event(null))).toEqual([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
  });

  it('non-JSON content type → the body fails model validation', () => {
    const items = errorsOf(event('name=x', { headers: { 'Content-Type': 'text/plain' } }));
    expect(items).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: 'name=x',
        ctx: { error: "the body was sent as 'text/plain', not read as JSON: send Content-Type: application/json" },
      },
    ]);
  });

  it('path and query strings are parsed as ints/bools, with FastAPI locations', () => {
    const items = errorsOf(
      event(JSON.stringify(valid), {
        pathParameters: { thing_id: 'abc' },
        queryStringParameters: { expires_in: 'soon', verbose: 'perhaps' },
      }),
    );
    expect(items).toEqual([
      {
        type: 'int_parsing',
        loc: ['path', 'thing_id'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'abc',
      },
      {
        type: 'int_parsing',
        loc: ['query', 'expires_in'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'soon',
      },
      {
        type: 'bool_parsing',
        loc: ['query', 'verbose'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'perhaps',
      },
    ]);
  });

  it('query bounds and defaults', () => {
    expect(errorsOf(event(JSON.stringify(valid), { queryStringParameters: { expires_in: '59' } }))).toEqual([
      {
        type: 'greater_than_equal',
        loc: ['query', 'expires_in'],
        msg: 'Input should be greater than or equal to 60',
        input: '59',
        ctx: { ge: 60 },
      },
    ]);
    const input = parseRequest(route, event(JSON.stringify(valid)));
    expect(input.query).toEqual({ expires_in: 3600, verbose: false });
    expect(input.params).toEqual({ thing_id: 1 });
  });
});

describe('malformed JSON → json_invalid', () => {
  it.each<[string, number, string]>([
    ['{', 1, 'Expecting property name enclosed in double quotes'],
    ['{"name": }', 9, 'Expecting value'],
    ['{"name" "x"}', 8, "Expecting ':' delimiter"],
    ['{"a": 1 "b": 2}', 8, "Expecting ',' delimiter"],
    ['{"a": 1} x', 9, 'Extra data'],
    ['nope', 0, 'Expecting value'],
    ['{"a": tru}', 6, 'Expecting value'],
  ])('%s', (text, position, error) => {
    try {
      readJsonBody(text, 'application/json');
      expect.unreachable();
    } catch (caught) {
      expect((caught as RequestValidationError).items).toEqual([
        { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } },
      ]);
    }
  });

  it('treats an empty body as absent and JSON subtypes as JSON', () => {
    expect(readJsonBody('', 'application/json')).toEqual({ kind: 'absent' });
    expect(readJsonBody('{"a":1}', 'application/merge-patch+json; charset=utf-8')).toEqual({
      kind: 'json',
      value: { a: 1 },
    });
    expect(readJsonBody('{"a":1}', undefined)).toEqual({ kind: 'json', value: { a: 1 } });
  });
});

describe('an integer that also takes a public id (POST /campaigns `workflow_id`)', () => {
  const agentRoute = defineRoute({
    operationId: 'agentRef',
    method: 'POST',
    path: '/campaigns',
    group: 'test',
    summary: 'test',
    description: 'A route of this test.',
    tags: [],
    request: { body: z.object({ workflow_id: CreateCampaignRequest.shape.workflow_id }) },
    responses: {},
  });
  const parse = (workflowId: unknown) =>
    parseRequest(agentRoute, event(JSON.stringify({ workflow_id: workflowId }), { path: '/api/v1/campaigns' }));

  it.each<[unknown, unknown]>([
    [42, 42],
    ['42', 42],
    [' 7 ', 7],
    ['agent_AbCdEfGhIjKlMnOpQrSt', 'agent_AbCdEfGhIjKlMnOpQrSt'],
  ])('accepts %j as %j', (workflowId, expected) => {
    expect(parse(workflowId).body.workflow_id).toBe(expected);
  });

  it.each<[unknown, string, string]>([
    ['abc', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
    ['agent_short', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
    ['', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
    [1.5, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part'],
    [true, 'int_type', 'Input should be a valid integer'],
    [{}, 'int_type', 'Input should be a valid integer'],
    [[1], 'int_type', 'Input should be a valid integer'],
  ])('answers %j as FastAPI does for an int field: %s', (workflowId, type, msg) => {
    let items: ValidationErrorItem[] = [];
    try {
      parse(workflowId);
    } catch (error) {
      if (error instanceof RequestValidationError) items = error.items;
    }
    expect(items).toEqual([{ type, loc: ['body', 'workflow_id'], msg, input: workflowId }]);
  });

  it('reports null as FastAPI does for a required int field', () => {
    expect(() => parse(null)).toThrow(
      expect.objectContaining({
        items: [
          { type: 'int_type', loc: ['body', 'workflow_id'], msg: 'Input should be a valid integer', input: null },
        ],
      }),
    );
  });
});
