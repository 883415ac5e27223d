import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ROUTES } from '../../shared/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';
import { parseRequest } from '../../shared/http/request.ts';
import { findIllFormedStrings } from '../../shared/http/json-limits.ts';
import { RequestValidationError, type ValidationErrorItem } from '../../shared/http/validation-error.ts';
import { NO_CONTROL_CHARACTERS } from '../../shared/schemas/common.ts';

type Schema = Record<string, any>;
const document = buildOpenApiDocument(ROUTES, 'http://localhost/api/v1') as any;
const resolve = (schema: Schema): Schema =>
  schema.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()]) : schema;

/** Request body fields that name or title something, by JSON pointer, with their pattern. */
function nameFields(schema: Schema, where: string, found: [string, string | undefined][]): void {
  schema = resolve(schema);
  for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    nameFields(variant, where, found);
  if (schema.items) nameFields(schema.items, `${where}/items`, found);
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    const resolved = resolve(property);
    const strings = [resolved, ...(resolved.anyOf ?? [])].filter((part) => part.type === 'string');
    if (/(^|_)name$|^title$|^topic$/.test(name) && strings.length && !strings.some((part) => part.enum))
      found.push([`${where}/${name}`, strings[0].pattern]);
    nameFields(property, `${where}/${name}`, found);
  }
}

const fields: [string, string | undefined][] = [];
for (const [path, methods] of Object.entries<Schema>(document.paths))
  for (const [method, operation] of Object.entries<Schema>(methods))
    for (const content of Object.values<Schema>(operation.requestBody?.content ?? {}))
      nameFields(content.schema, `${method.toUpperCase()} ${path}`, fields);

describe('name-like request fields refuse control characters', () => {
  it('finds the name fields (agents, campaigns, keys, triggers, knowledge documents, numbers, memories…)', () => {
    expect(fields.map(([where]) => where)).toEqual(
      expect.arrayContaining([
        'POST /agents/name',
        'PATCH /agents/{agent_id}/name',
        'POST /campaigns/name',
        'POST /campaigns/manual_contacts/items/first_name',
        'POST /triggers/name',
        'POST /api-keys/name',
        'POST /agents/{agent_id}/knowledge-base/documents/title',
        'POST /agents/{agent_id}/memories/topic',
        'POST /phone-numbers/marketplace/purchase/friendly_name',
      ]),
    );
  });

  // Most use NO_CONTROL_CHARACTERS; tool and transfer destination names have stricter patterns of their own.
  it.each(fields)('%s', (_where, pattern) => {
    expect(pattern).toBeDefined();
    for (const bad of ['a\u0000', 'a\nb', 'a\u007f', 'a\u009b']) expect(new RegExp(pattern!).test(bad)).toBe(false);
  });
});

function event(path: string, body: string): APIGatewayProxyEvent {
  return {
    body,
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path,
    pathParameters: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: path,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  };
}

function errorsOf(route: (typeof ROUTES)[number], body: string): ValidationErrorItem[] {
  try {
    parseRequest(route, event('/api/v1/agents', body));
  } catch (error) {
    if (error instanceof RequestValidationError) return error.items;
    throw error;
  }
  throw new Error('expected a validation error');
}

const createAgent = ROUTES.find((route) => route.operationId === 'createAgent')!;

describe('FastAPI-exact 422s', () => {
  it('a NUL or a line break in a name is string_pattern_mismatch', () => {
    for (const name of ['Sales\u0000', 'two\nlines', 'bell\u0007', 'c1\u0085']) {
      expect(errorsOf(createAgent, JSON.stringify({ name }))).toEqual([
        {
          type: 'string_pattern_mismatch',
          loc: ['body', 'name'],
          msg: `String should match pattern '${NO_CONTROL_CHARACTERS.source}'`,
          input: name,
          ctx: { pattern: NO_CONTROL_CHARACTERS.source },
        },
      ]);
    }
  });

  it('a lone surrogate anywhere in a body is string_unicode at that string (free-form objects and keys too)', () => {
    const body = '{"name": "Sales \\ud800", "workflow_configurations": {"k\\udc00": ["ok", "\\udfff x"]}}';
    const unicode = (loc: (string | number)[], input: string) => ({
      type: 'string_unicode',
      loc: ['body', ...loc],
      msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
      input,
    });
    expect(errorsOf(createAgent, body)).toEqual([
      unicode(['name'], 'Sales \ud800'),
      unicode(['workflow_configurations', 'k\udc00'], 'k\udc00'),
      unicode(['workflow_configurations', 'k\udc00', 1], '\udfff x'),
    ]);
  });

  it('pairs of surrogates (emoji) and other text pass', () => {
    expect(findIllFormedStrings({ name: 'Sales 📞', list: ['żółw', '\ud83d\ude00'], n: 1 })).toEqual([]);
    expect(findIllFormedStrings('\ud83d')).toEqual([{ path: [], value: '\ud83d' }]);
  });
});
