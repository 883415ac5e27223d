import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';

type Schema = Record<string, any>;
const document = buildOpenApiDocument(ROUTES, 'http://127.0.0.1/api/v1') as Schema;
const operations = Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    method,
    path,
    operation,
  })),
);
const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? document.components.schemas[(schema.$ref as string).split('/').at(-1)!] : schema;
const jsonSchema = (response: Schema | undefined) => resolve(response?.content?.['application/json']?.schema);

/**
 * The spec fixes `GET /agents` as a plain array of agents, and the latency report's shape is fixed
 * for the console (a whole report of a range of at most 366 days, like `GET /usage`'s lists); every
 * other list is the page envelope.
 */
const SPEC_FIXED_LISTS = new Set(['GET /agents', 'GET /usage/latency']);

describe('OpenAPI document: one list shape', () => {
  const lists = operations.filter(({ operation }) => {
    const schema = jsonSchema(operation.responses?.['200']);
    return schema?.type === 'array' || resolve(schema?.properties?.items)?.type === 'array';
  });

  it('finds the lists', () => {
    expect(lists.map(({ name }) => name)).toEqual(
      expect.arrayContaining([
        'GET /agent-templates',
        'GET /outbound-agents',
        'GET /integrations',
        'GET /webhooks',
        'GET /agents/{agent_id}/tools',
        'GET /phone-numbers/marketplace',
        'GET /organizations/usage/runs',
      ]),
    );
  });

  it.each(lists.filter(({ name }) => !SPEC_FIXED_LISTS.has(name)).map((list) => [list.name, list] as const))(
    '%s is paginated with page, limit, total_count, total_pages',
    (_name, { operation }) => {
      const schema = jsonSchema(operation.responses['200'])!;
      expect(schema.required).toEqual(expect.arrayContaining(['items', 'page', 'limit', 'total_count', 'total_pages']));
      const query = (operation.parameters ?? [])
        .filter((parameter: Schema) => parameter.in === 'query')
        .map((parameter: Schema) => parameter.name);
      expect(query).toEqual(expect.arrayContaining(['page', 'limit']));
    },
  );
});

describe('OpenAPI document: one detail shape per status', () => {
  it('declares every error as ErrorResponse, 422 as HTTPValidationError, and the call-placement 409 as one of both 409 shapes', () => {
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
        if (Number(status) < 400) continue;
        const expected =
          status === '422'
            ? ['#/components/schemas/HTTPValidationError']
            : status === '409'
              ? ['#/components/schemas/ErrorResponse', '#/components/schemas/CallPlacementConflict']
              : ['#/components/schemas/ErrorResponse'];
        expect(expected, `${name} ${status}`).toContain(response.content?.['application/json']?.schema?.$ref);
      }
    }
  });

  it('declares every 409 as a {detail} string, or as one of the string and the calling-hours object', () => {
    const conflicts = operations.filter(({ operation }) => operation.responses?.['409']);
    expect(conflicts.length).toBeGreaterThan(5);
    for (const { name, operation } of conflicts) {
      const schema = jsonSchema(operation.responses['409'])!;
      const variants: Schema[] = schema.oneOf ? schema.oneOf.map(resolve) : [schema];
      expect(
        variants.some((variant) => variant.properties.detail.type === 'string'),
        name,
      ).toBe(true);
      for (const variant of variants) expect(variant.required, name).toEqual(['detail']);
    }
    const placement = jsonSchema(document.paths['/agents/{agent_id}/calls'].post.responses['409'])!;
    expect(placement.oneOf.map((variant: Schema) => variant.$ref)).toEqual([
      '#/components/schemas/CallingHoursConflict',
      '#/components/schemas/ErrorResponse',
    ]);
  });
});
