import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../../shared/api/route.ts';
import { parseRequest } from '../../shared/http/request.ts';
import { RequestValidationError, type ValidationErrorItem } from '../../shared/http/validation-error.ts';
import { whenFieldsValid } from '../../shared/schemas/common.ts';

const Window = z
  .object({
    start: z.string().regex(/^\d\d:\d\d$/),
    end: z.string().regex(/^\d\d:\d\d$/),
    days: z.array(z.int().gte(1).lte(7)).optional(),
  })
  .refine((window) => window.start < window.end, {
    message: 'start must be earlier than end',
    path: [],
    when: whenFieldsValid,
  });

const route = defineRoute({
  operationId: 'conformance',
  method: 'POST',
  path: '/things/{thing_id}',
  group: 'test',
  summary: 'test',
  description: 'A route for validation tests.',
  tags: [],
  request: {
    params: z.object({ thing_id: z.int().gte(1) }),
    query: z.object({ limit: z.int().gte(1).lte(100).optional(), kind: z.enum(['a', 'b']).optional() }),
    body: z.object({
      mode: z.enum(['webrtc', 'chat']),
      provider: z.literal('google-sheets'),
      window: Window.optional(),
    }),
  },
  responses: {},
});

function errorsOf(overrides: Partial<APIGatewayProxyEvent>): ValidationErrorItem[] {
  const event = {
    headers: { 'Content-Type': 'application/json' },
    body: '{"mode": "chat", "provider": "google-sheets"}',
    pathParameters: { thing_id: '1' },
    queryStringParameters: null,
    ...overrides,
  };
  try {
    parseRequest(route, event as unknown as APIGatewayProxyEvent);
  } catch (error) {
    if (error instanceof RequestValidationError) return error.items;
    throw error;
  }
  return [];
}

describe('FastAPI conformance of 422 items', () => {
  it('a missing enum or literal field is `missing` / "Field required" with the parent as input', () => {
    expect(errorsOf({ body: '{}' })).toEqual([
      { type: 'missing', loc: ['body', 'mode'], msg: 'Field required', input: {} },
      { type: 'missing', loc: ['body', 'provider'], msg: 'Field required', input: {} },
    ]);
  });

  it('a wrong enum value is still a literal_error with its input', () => {
    expect(errorsOf({ body: '{"mode": "fax", "provider": "google-sheets"}' })).toEqual([
      {
        type: 'literal_error',
        loc: ['body', 'mode'],
        msg: "Input should be 'webrtc' or 'chat'",
        input: 'fax',
        ctx: { expected: "'webrtc' or 'chat'" },
      },
    ]);
  });

  it('query and path values are echoed as the strings received', () => {
    expect(errorsOf({ pathParameters: { thing_id: '0' }, queryStringParameters: { limit: '500', kind: 'c' } })).toEqual(
      [
        {
          type: 'greater_than_equal',
          loc: ['path', 'thing_id'],
          msg: 'Input should be greater than or equal to 1',
          input: '0',
          ctx: { ge: 1 },
        },
        {
          type: 'less_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 100',
          input: '500',
          ctx: { le: 100 },
        },
        {
          type: 'literal_error',
          loc: ['query', 'kind'],
          msg: "Input should be 'a' or 'b'",
          input: 'c',
          ctx: { expected: "'a' or 'b'" },
        },
      ],
    );
  });

  it('a rule on a whole object adds no item while one of its fields fails (as a Pydantic model validator)', () => {
    const body = (window: object) => JSON.stringify({ mode: 'chat', provider: 'google-sheets', window });
    expect(errorsOf({ body: body({ start: '10:00', end: '09:00', days: [9] }) })).toEqual([
      {
        type: 'less_than_equal',
        loc: ['body', 'window', 'days', 0],
        msg: 'Input should be less than or equal to 7',
        input: 9,
        ctx: { le: 7 },
      },
    ]);
    expect(errorsOf({ body: body({ start: '10:00', end: '09:00' }) })).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'window'],
        msg: 'Value error, start must be earlier than end',
        input: { start: '10:00', end: '09:00' },
        ctx: { error: 'start must be earlier than end' },
      },
    ]);
  });
});

describe('Content-Type of a JSON body', () => {
  it("another Content-Type gives FastAPI's item for a body not read as JSON, with a ctx that says why", () => {
    const text = '{"mode": "chat", "provider": "google-sheets"}';
    expect(errorsOf({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: text })).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: text,
        ctx: {
          error:
            "the body was sent as 'application/x-www-form-urlencoded', not read as JSON: send Content-Type: application/json",
        },
      },
    ]);
  });

  it('no Content-Type reads the body as JSON, as FastAPI does', () => {
    expect(errorsOf({ headers: {}, body: '{"mode": "chat", "provider": "google-sheets"}' })).toEqual([]);
  });
});
