import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { z } from 'zod';
import type { OperationInput, Route, RouteRequest } from '../api/route.ts';
import { readJsonBody } from './json-body.ts';
import { abbreviate, findIllFormedStrings, findUnstorable } from './json-limits.ts';
import { coerceLax } from './lax-coercion.ts';
import {
  fieldRequired,
  RequestValidationError,
  type LocationRoot,
  type ValidationErrorItem,
} from './validation-error.ts';
import { toFastApiItems } from './zod-to-fastapi.ts';

type Source = Record<string, string | string[] | undefined>;

function isArraySchema(schema: z.ZodType): boolean {
  let current = schema as unknown as { _zod: { def: { type: string; innerType?: unknown } } };
  while (current._zod.def.innerType) current = current._zod.def.innerType as typeof current;
  return current._zod.def.type === 'array';
}

/** Query strings may repeat a key; like Starlette, a scalar field takes the last value. */
function pickValues(schema: z.ZodObject, source: Source): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const value = source[key];
    if (value === undefined) continue;
    if (Array.isArray(value)) picked[key] = isArraySchema(field) ? value : value.at(-1);
    else picked[key] = isArraySchema(field) ? [value] : value;
  }
  return picked;
}

function validatePart(
  schema: z.ZodType | undefined,
  data: unknown,
  root: LocationRoot,
  errors: ValidationErrorItem[],
): unknown {
  if (!schema) return undefined;
  const coerced = coerceLax(schema, data);
  const result = schema.safeParse(coerced);
  if (result.success) return result.data;
  errors.push(...toFastApiItems(result.error.issues, root, coerced, data));
  return undefined;
}

function lowerCaseHeaders(event: APIGatewayProxyEvent): Source {
  const headers: Source = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

export function headerValue(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === wanted);
  return entry?.[1] ?? undefined;
}

function eventBodyText(event: APIGatewayProxyEvent): string | null {
  if (event.body == null) return null;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/**
 * A body sent with another Content-Type is not read as JSON (as in FastAPI) and fails as a whole:
 * the item stays FastAPI's (`model_attributes_type` on `body`, the text as input) and its `ctx`
 * says why, since that is rarely what the client meant (curl -d sends form encoding).
 */
function explainContentType(items: ValidationErrorItem[], contentType: string): void {
  const error = `the body was sent as '${contentType.split(';')[0]!.trim()}', not read as JSON: send Content-Type: application/json`;
  for (const item of items) if (item.loc.length === 1) item.ctx = { error };
}

/**
 * DynamoDB stores at most 32 nested levels, and a body nested thousands deep would overflow every
 * recursive walk after parsing (validation, serialisation of the 422); reserved keys cannot be
 * stored as map keys. Such a body fails alone, like malformed JSON, at the first offending place.
 */
function rejectUnstorable(body: unknown): void {
  const found = findUnstorable(body);
  if (!found) return;
  throw new RequestValidationError([
    {
      type: 'value_error',
      loc: ['body', ...found.path],
      msg: `Value error, ${found.error}`,
      input: abbreviate(found.value),
      ctx: { error: found.error },
    },
  ]);
}

/**
 * A lone surrogate in any string of a body (see findIllFormedStrings) is Pydantic's
 * `string_unicode` at that string, wherever it is (free-form objects included, which Pydantic
 * would pass): such a body fails alone, every such string listed.
 */
function rejectIllFormedStrings(body: unknown): void {
  const found = findIllFormedStrings(body);
  if (!found.length) return;
  throw new RequestValidationError(
    found.map(({ path, value }) => ({
      type: 'string_unicode',
      loc: ['body', ...path],
      msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
      input: abbreviate(value),
    })),
  );
}

/**
 * Validates path, query, headers and body of an API Gateway event against the route's schemas and
 * reports every failure at once, in FastAPI's order (path, query, header, body). A body that is not
 * JSON fails alone, before anything else is looked at, as in FastAPI.
 */
export function parseRequest<Req extends RouteRequest>(
  route: Route<Req>,
  event: APIGatewayProxyEvent,
): OperationInput<Req> {
  const { request } = route;
  const rawBody = request.body ? readJsonBody(eventBodyText(event), headerValue(event, 'content-type')) : undefined;
  if (rawBody?.kind === 'json') {
    rejectUnstorable(rawBody.value);
    rejectIllFormedStrings(rawBody.value);
  }
  const errors: ValidationErrorItem[] = [];

  const params = request.params
    ? validatePart(request.params, pickValues(request.params, event.pathParameters ?? {}), 'path', errors)
    : undefined;
  const query = request.query
    ? validatePart(
        request.query,
        pickValues(request.query, { ...event.queryStringParameters, ...event.multiValueQueryStringParameters }),
        'query',
        errors,
      )
    : undefined;
  const headers = request.headers
    ? validatePart(request.headers, pickValues(request.headers, lowerCaseHeaders(event)), 'header', errors)
    : undefined;

  let body: unknown;
  if (request.body && rawBody) {
    if (rawBody.kind === 'absent') {
      if (request.bodyRequired !== false) errors.push(fieldRequired(['body'], null));
    } else {
      const before = errors.length;
      body = validatePart(request.body, rawBody.kind === 'json' ? rawBody.value : rawBody.text, 'body', errors);
      if (rawBody.kind === 'raw') explainContentType(errors.slice(before), headerValue(event, 'content-type') ?? '');
    }
  }

  if (errors.length) throw new RequestValidationError(errors);
  return { params, query, headers, body } as OperationInput<Req>;
}
