import { beforeAll, describe, expect, it } from 'vitest';
import { apiClient, newOrganization, type TestOrganization } from '../support/api.ts';

/**
 * Fuzzing from the live OpenAPI document: every operation gets requests built from its own
 * schemas and then broken in one way (wrong types, bounds, deep nesting, prototype keys, huge
 * strings, malformed bodies, junk paths, queries and headers). The service must never answer 5xx,
 * must keep serving, and every 422 must be FastAPI's body.
 *
 * Seeded and sized from the environment: FUZZ_SEED (default 20261123) and FUZZ_REQUESTS (default
 * 450, about 20 s on a busy 2-core machine). A failure prints the seed and the request.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 450);
const CONCURRENCY = 4;

type Schema = Record<string, any>;
type Operation = { method: string; path: string; spec: Schema };

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const api = apiClient();
let org: TestOrganization;
/**
 * The model key is the organization's: once set (to a loopback URL), every AI operation of that
 * organization would call it. Model-key requests use their own organization, so the AI operations
 * of the main one keep the platform's (local) model; model upstream failures are tested with the
 * model client, not here.
 */
let modelKeyOrg: TestOrganization;
let agentId: string;
let document: Schema;

const resolve = (schema: Schema | undefined): Schema => {
  if (!schema) return {};
  if (schema.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop()]);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map(resolve));
  return schema;
};

const typeOf = (schema: Schema): string | undefined => [schema.type].flat().find((type) => type && type !== 'null');

/**
 * Every URL the fuzz hands the service points at a closed loopback port: tests never make the
 * product connect anywhere else (webhooks, model API, website analysis, tools).
 */
const LOOPBACK_URL = 'https://127.0.0.1:9/fuzz';
const onLoopback = (value: unknown): unknown =>
  typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? LOOPBACK_URL : value;

/** A value the schema accepts as far as a generator can tell (examples, defaults, bounds). */
function validValue(rng: Random, raw: Schema, depth = 0): unknown {
  return onLoopback(generate(rng, raw, depth));
}

function generate(rng: Random, raw: Schema, depth: number): unknown {
  const schema = resolve(raw);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return validValue(rng, rng.pick(variants), depth);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined && rng.chance(0.5)) return schema.default;
  switch (typeOf(schema)) {
    case 'string':
      if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
      if (schema.format === 'uri') return LOOPBACK_URL;
      if (schema.pattern === '^[A-Z]{2}$') return rng.pick(['PL', 'US', 'GB']);
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
      return schema.minimum ?? schema.exclusiveMinimum ?? 1;
    case 'number':
      return schema.minimum ?? 1.5;
    case 'boolean':
      return rng.chance(0.5);
    case 'array':
      return depth > 4
        ? []
        : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
            validValue(rng, schema.items ?? {}, depth + 1),
          );
    case 'object':
    default: {
      if (depth > 4) return {};
      const object: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(name) || rng.chance(0.5)) object[name] = validValue(rng, property, depth + 1);
      }
      if (schema.additionalProperties && rng.chance(0.5)) object.extra_key = 'value';
      return object;
    }
  }
}

/** Deep values are spliced into the JSON text: JSON.stringify itself overflows a few thousand levels down. */
const DEEP_MARKER = '__fuzz_deep__';
const nestedText = (levels: number, array: boolean): string =>
  array ? `${'['.repeat(levels)}"leaf"${']'.repeat(levels)}` : `${'{"k":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;

const hugeString = (rng: Random) =>
  rng.pick(['x', 'ż', '"', '\\', '\u0000', '😀']).repeat(rng.pick([70_000, 300_000, 1_000_000]));

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

const wrongTypeFor = (rng: Random, value: unknown): unknown => {
  const candidates: unknown[] = [null, true, 0, -1, 1.5, 'text', '', [], {}, [1, 'a'], { a: 1 }, 1e308, -1e308];
  return rng.pick(
    candidates.filter(
      (candidate) => typeof candidate !== typeof value || Array.isArray(candidate) !== Array.isArray(value),
    ),
  );
};

function outOfBounds(rng: Random, schema: Schema): unknown {
  switch (typeOf(schema)) {
    case 'string':
      return rng.pick([
        '',
        'x'.repeat((schema.maxLength ?? 255) + 1),
        ' ',
        '\u0000',
        'ą'.repeat((schema.maxLength ?? 255) + 1),
      ]);
    case 'integer':
    case 'number':
      return rng.pick([
        (schema.maximum ?? 2 ** 53) + 1,
        (schema.minimum ?? -(2 ** 53)) - 1,
        0,
        -1,
        0.5,
        2 ** 64,
        Number.MAX_SAFE_INTEGER + 2,
      ]);
    case 'array':
      return Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => validValue(rng, schema.items ?? {}));
    default:
      return wrongTypeFor(rng, {});
  }
}

/** The body fields of an object schema, by path, with their schemas (one level deep is enough to aim). */
function fieldsOf(schema: Schema): { path: string[]; schema: Schema }[] {
  const resolved = resolve(schema);
  const fields: { path: string[]; schema: Schema }[] = [];
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
    fields.push({ path: [name], schema: resolve(property) });
    for (const [inner, innerSchema] of Object.entries<Schema>(resolve(property).properties ?? {})) {
      fields.push({ path: [name, inner], schema: resolve(innerSchema) });
    }
  }
  return fields;
}

function setAt(target: Record<string, any>, path: string[], value: unknown): void {
  let current = target;
  for (const key of path.slice(0, -1)) {
    if (typeof current[key] !== 'object' || current[key] === null || Array.isArray(current[key])) current[key] = {};
    current = current[key];
  }
  current[path.at(-1)!] = value;
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  mutation: string;
}

const JUNK_PATH_VALUES = [
  'constructor',
  '__proto__',
  'toString',
  '0',
  '-1',
  '99999999999999999999',
  '1e3',
  '%00',
  '..%2F..%2Fetc',
  'x'.repeat(2000),
  'agent_%E2%82%AC',
  '%F0%9F%98%80',
  '%ZZ',
  'null',
  'undefined',
  'NaN',
];
const JUNK_QUERY_VALUES = [
  '-1',
  '0',
  'abc',
  '1e3',
  '100000',
  '',
  '%00',
  '1.5',
  'x'.repeat(5000),
  'true',
  '[]',
  '{}',
  'constructor',
];
const MALFORMED_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '123',
  '{"a":1}garbage',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":NaN}',
  "{'a': 1}",
  '{"a":1,}',
  '\u0000',
];
const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'multipart/form-data; boundary=x',
  '',
];

function buildRequest(rng: Random, operation: Operation): FuzzRequest {
  const mutations = [
    'valid',
    'wrong-type',
    'bounds',
    'deep',
    'prototype',
    'huge',
    'malformed',
    'missing',
    'path',
    'query',
    'header',
  ];
  const mutation = rng.pick(mutations);
  const headers: Record<string, string> = { 'X-API-Key': operation.path === '/model-key' ? modelKeyOrg.key : org.key };
  const parameters: Schema[] = operation.spec.parameters ?? [];

  let path = operation.path;
  for (const parameter of parameters.filter((candidate) => candidate.in === 'path')) {
    let value =
      parameter.name === 'agent_id' && rng.chance(0.8) ? agentId : String(validValue(rng, parameter.schema ?? {}));
    if (mutation === 'path' || (mutation === 'prototype' && rng.chance(0.5))) value = rng.pick(JUNK_PATH_VALUES);
    else value = encodeURIComponent(value);
    path = path.replace(`{${parameter.name}}`, value);
  }

  const query = new URLSearchParams();
  for (const parameter of parameters.filter((candidate) => candidate.in === 'query')) {
    if (rng.chance(0.5)) query.append(parameter.name, String(validValue(rng, parameter.schema ?? {})));
    if (mutation === 'query') query.append(parameter.name, rng.pick(JUNK_QUERY_VALUES));
  }
  if (mutation === 'prototype')
    for (const key of PROTOTYPE_KEYS) if (rng.chance(0.3)) query.append(key, rng.pick(JUNK_QUERY_VALUES));

  for (const parameter of parameters.filter((candidate) => candidate.in === 'header')) {
    if (mutation === 'header') headers[parameter.name] = rng.pick(['', 'x'.repeat(300), 'constructor', ' ', 'ü']);
  }
  if (mutation === 'header') {
    if (rng.chance(0.3)) delete headers['X-API-Key'];
    if (rng.chance(0.3)) headers.Authorization = `Bearer ${org.key}`;
    if (rng.chance(0.2)) headers['X-API-Key'] = rng.pick(['', 'vap_x', 'x'.repeat(5000), `${org.key}x`]);
  }

  const content = operation.spec.requestBody?.content ?? {};
  let body: string | Uint8Array | undefined;
  if (content['multipart/form-data']) {
    const boundary = 'fuzzBoundary';
    const file = rng.pick(['hello', 'PK\u0003\u0004garbage', '%PDF-1.7 garbage', hugeString(rng).slice(0, 200_000)]);
    const name = rng.pick(['a.txt', 'a.docx', 'a.pdf', 'a.exe', '']);
    const full = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n${file}\r\n--${boundary}--\r\n`;
    body = mutation === 'valid' ? full : full.slice(0, rng.int(full.length));
    headers['Content-Type'] = rng.chance(0.8) ? `multipart/form-data; boundary=${boundary}` : rng.pick(CONTENT_TYPES);
  } else if (content['application/json']) {
    const schema = content['application/json'].schema;
    const value = validValue(rng, schema) as Record<string, any>;
    const fields = fieldsOf(schema);
    const field = fields.length ? rng.pick(fields) : undefined;
    headers['Content-Type'] = 'application/json';
    switch (mutation) {
      case 'wrong-type':
        if (field) setAt(value, field.path, wrongTypeFor(rng, validValue(rng, field.schema)));
        break;
      case 'bounds':
        if (field) setAt(value, field.path, outOfBounds(rng, field.schema));
        break;
      case 'deep':
        setAt(value, field?.path ?? ['deep'], DEEP_MARKER);
        break;
      case 'prototype':
        for (const key of PROTOTYPE_KEYS)
          if (rng.chance(0.5)) value[key] = rng.pick([{ polluted: true }, 'x', 1, null]);
        if (field && rng.chance(0.5))
          setAt(value, field.path, Object.fromEntries(PROTOTYPE_KEYS.map((key) => [key, { polluted: true }])));
        break;
      case 'huge':
        setAt(value, field?.path ?? ['huge'], hugeString(rng));
        break;
      case 'missing':
        for (const name of resolve(schema).required ?? []) if (rng.chance(0.7)) delete value[name];
        break;
    }
    // JSON.stringify drops a `__proto__` own key set by assignment; write prototype keys literally.
    body =
      typeof value === 'object' && value !== null
        ? JSON.stringify(value)
            .replace(/^\{/, mutation === 'prototype' ? '{"__proto__": {"polluted": true}, ' : '{')
            .replace(/, \}$/, '}')
        : JSON.stringify(value);
    if (mutation === 'deep')
      body = body.replace(`"${DEEP_MARKER}"`, nestedText(rng.pick([31, 32, 33, 40, 5000, 100_000]), rng.chance(0.5)));
    if (mutation === 'malformed') {
      body = rng.chance(0.3)
        ? new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])
        : rng.pick(MALFORMED_BODIES);
      const type = rng.pick(CONTENT_TYPES);
      if (type) headers['Content-Type'] = type;
      else delete headers['Content-Type'];
    }
  } else if (mutation === 'malformed' && operation.method !== 'GET') {
    body = rng.pick(MALFORMED_BODIES);
    headers['Content-Type'] = rng.pick(CONTENT_TYPES) || 'application/json';
  }
  const search = query.toString();
  return {
    method: operation.method,
    url: `${api.baseUrl}${path}${search ? `?${search}` : ''}`,
    headers,
    body,
    mutation,
  };
}

/** FastAPI's 422: `{detail: [{type, loc, msg, input?, ctx?}]}`, `loc` rooted at a request part. */
function fastApiShapeProblems(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown })?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return 'detail is not a non-empty array';
  for (const item of detail) {
    if (typeof item?.type !== 'string' || typeof item?.msg !== 'string')
      return `item without type/msg: ${JSON.stringify(item).slice(0, 200)}`;
    if (!Array.isArray(item.loc) || !['body', 'query', 'path', 'header'].includes(item.loc[0]))
      return `bad loc: ${JSON.stringify(item.loc)}`;
    if (!item.loc.slice(1).every((part: unknown) => typeof part === 'string' || Number.isInteger(part)))
      return `bad loc part: ${JSON.stringify(item.loc)}`;
    if (item.ctx !== undefined && (typeof item.ctx !== 'object' || item.ctx === null)) return 'ctx is not an object';
  }
  return undefined;
}

async function send(request: FuzzRequest): Promise<string | undefined> {
  const label = `${request.mutation} ${request.method} ${request.url.slice(0, 200)} ${typeof request.body === 'string' ? request.body.slice(0, 200) : ''}`;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(20_000),
    });
  } catch (error) {
    return `${label}: no answer (${(error as Error).message})`;
  }
  const text = await response.text();
  if (response.status >= 500) return `${label}: ${response.status} ${text.slice(0, 300)}`;
  if (response.status >= 400 && response.headers.get('content-type')?.includes('json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return `${label}: ${response.status} with a body that is not JSON`;
    }
    if (response.status === 422) {
      const problem = fastApiShapeProblems(parsed);
      if (problem) return `${label}: 422 not FastAPI-shaped (${problem})`;
    } else if ((parsed as { detail?: unknown })?.detail === undefined)
      return `${label}: ${response.status} without detail`;
  }
  return undefined;
}

beforeAll(async () => {
  org = await newOrganization('Fuzz');
  modelKeyOrg = await newOrganization('Fuzz model key');
  const agent = await api.request('POST', '/agents', {
    key: org.key,
    body: { name: 'Fuzz target', workflow_definition: { steps: ['Hello'] } },
  });
  agentId = agent.body.public_id;
  document = (await api.request('GET', '/public-openapi.json')).body;
});

describe(`fuzz from the OpenAPI document (FUZZ_SEED=${SEED}, FUZZ_REQUESTS=${REQUESTS})`, () => {
  it('no 5xx, no crash, FastAPI-shaped 422s on every operation', { timeout: 300_000 }, async () => {
    const operations: Operation[] = Object.entries<Schema>(document.paths).flatMap(([path, methods]) =>
      Object.entries<Schema>(methods).map(([method, spec]) => ({ method: method.toUpperCase(), path, spec })),
    );
    const rng = random(SEED);
    // Requests are built in order from the seed, so a run is reproducible whatever the timing.
    const requests = Array.from({ length: Math.max(REQUESTS, operations.length) }, (_, index) =>
      buildRequest(rng, operations[index % operations.length]!),
    );
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const failure = await send(requests[next++]!);
          if (failure) failures.push(failure);
        }
      }),
    );
    // Still serving after all of it.
    expect((await api.request('GET', '/agents/summary', { key: org.key })).status).toBe(200);
    expect(failures, `seed ${SEED}`).toEqual([]);
  });
});
