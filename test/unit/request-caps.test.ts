import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';

type Schema = Record<string, any>;
const document = buildOpenApiDocument(ROUTES, 'http://localhost/api/v1') as any;

const resolve = (schema: Schema): Schema =>
  schema.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()]) : schema;

/**
 * Every place a request value can grow without bound, by JSON pointer. Strings need `maxLength`
 * (or an enum/const, or a bounded pattern), arrays `maxItems`, free-form objects a stored-size cap.
 */
function unbounded(schema: Schema, where: string, found: string[]): void {
  schema = resolve(schema);
  // A stored-size cap bounds everything below it.
  if ([schema, ...(schema.allOf ?? [])].some((part) => part['x-max-stored-bytes'] !== undefined)) return;
  for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    unbounded(variant, where, found);
  const types = [schema.type].flat().filter((type) => type && type !== 'null');
  if (
    types.includes('string') &&
    schema.maxLength === undefined &&
    !schema.enum &&
    schema.const === undefined &&
    !['date', 'date-time'].includes(schema.format) &&
    !/\{\d*,?\d+\}\$?$|^\^[^*+]*\$$/.test(schema.pattern ?? '')
  )
    found.push(`${where} (string)`);
  if (types.includes('array')) {
    if (schema.maxItems === undefined) found.push(`${where} (array)`);
    if (schema.items) unbounded(schema.items, `${where}/items`, found);
  }
  if (types.includes('object')) {
    for (const [name, property] of Object.entries<Schema>(schema.properties ?? {}))
      unbounded(property, `${where}/${name}`, found);
    if (schema.additionalProperties && schema.maxProperties === undefined) found.push(`${where} (object)`);
    if (typeof schema.additionalProperties === 'object') unbounded(schema.additionalProperties, `${where}/*`, found);
  }
}

/** Campaign creation is capped by its own work (all-or-nothing import); left out here. */
const EXEMPT = new Set(['POST /campaigns']);

describe('every stored request field has a cap', () => {
  const operations = Object.entries<Schema>(document.paths).flatMap(([path, methods]) =>
    Object.entries<Schema>(methods).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );

  it.each(operations.filter(({ name }) => !EXEMPT.has(name)).map(({ name, operation }) => [name, operation] as const))(
    '%s',
    (_name, operation) => {
      const found: string[] = [];
      for (const parameter of operation.parameters ?? [])
        unbounded(parameter.schema, `${parameter.in}/${parameter.name}`, found);
      for (const [type, content] of Object.entries<Schema>(operation.requestBody?.content ?? {}))
        if (type === 'application/json') unbounded(content.schema, 'body', found);
      expect(found).toEqual([]);
    },
  );
});
