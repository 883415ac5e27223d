import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ROUTES } from '../../shared/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';
import { documentedInt } from '../../shared/schemas/bounds.ts';
import '../../shared/schemas/common.ts';

type Schema = Record<string, any>;
const asDocumented = (schema: z.ZodType) => {
  const registry = new OpenAPIRegistry();
  registry.register('Probe', schema);
  return (
    new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: '', version: '' },
    }) as Schema
  ).components.schemas.Probe;
};
const document = buildOpenApiDocument(ROUTES, 'https://api.test/api/v1') as Schema;

describe('documentedInt: the document states the bounds validation has', () => {
  it.each([
    {
      schema: z.int(),
      expected: { format: 'int64', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    },
    { schema: z.int().gte(1), expected: { format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
    { schema: z.int().gte(0).lte(5), expected: { format: 'int32', minimum: 0, maximum: 5 } },
  ])('$expected.format [$expected.minimum, $expected.maximum]', ({ schema, expected }) => {
    const documented = documentedInt(schema);
    expect(asDocumented(documented)).toEqual({ type: 'integer', ...expected });
    // Validation is unchanged: the same values pass and fail.
    for (const value of [expected.minimum, expected.maximum, expected.minimum - 1, expected.maximum + 1, 1.5])
      expect(documented.safeParse(value).success, String(value)).toBe(schema.safeParse(value).success);
  });
});

describe('OpenAPI document: every operation answers 429 and 500 with the rate-limit and CORS headers', () => {
  const operations = Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as const),
  );

  it.each(operations)('%s', (_name, operation) => {
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['429', '500']));
    expect(operation.responses['429'].headers['Retry-After'].schema).toMatchObject({
      type: 'integer',
      maximum: 86_400,
    });
    for (const response of Object.values(operation.responses as Record<string, Schema>))
      for (const header of ['RateLimit', 'RateLimit-Policy', 'Access-Control-Allow-Origin'])
        expect(response.headers[header]).toEqual({ $ref: `#/components/headers/${header}` });
  });
});
