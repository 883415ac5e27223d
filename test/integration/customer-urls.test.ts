import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { API_PREFIX } from '../../shared/api/route.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';
import { REQUEST_EXAMPLES } from '../../shared/openapi/examples.ts';
import { GUARDED_URL, GUARDED_URL_KEYS } from '../../shared/schemas/outbound-url.ts';
import { configureLocalFunctions } from '../../local/lambda-runtime.ts';
import { startLocalGateway, type LocalGateway } from '../../local/gateway.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * Every URL a customer can set goes through the SSRF guard when it is given. The fields are
 * enumerated from the OpenAPI document (the zod schemas mark them with `guardedUrl` /
 * `withGuardedUrlKeys`, shared/schemas/outbound-url.ts), and any URL-like request field left
 * unmarked fails here, so a new one cannot skip the guard. Each is sent forbidden addresses through
 * a second gateway in this process configured as on AWS (no loopback, no plain http). Names
 * resolve through the stub below (the guard's resolver is node:dns/promises `lookup`): nothing is
 * looked up and every address is refused before any connection.
 */
const RESOLVES: Record<string, string[]> = {
  'metadata.attacker.test': ['169.254.169.254'],
  'internal.attacker.test': ['10.0.0.5'],
  'rebinding.attacker.test': ['93.184.215.14', '127.0.0.1'],
  'public.attacker.test': ['93.184.215.14'],
};
vi.mock('node:dns/promises', async (original) => ({
  ...(await original<typeof import('node:dns/promises')>()),
  lookup: async (hostname: string) => {
    const addresses = RESOLVES[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  },
}));

type Schema = Record<string, any>;
interface GuardedField {
  operationId: string;
  method: string;
  path: string;
  /** Where the URL goes in the body. */
  location: string[];
}

/** URL-like request fields the platform never fetches, each with why. */
const NOT_FETCHED: Record<string, string> = {
  'createConnection redirect_uri':
    "sent to Google's token endpoint as the OAuth parameter it must match; never fetched",
  'startConsent redirect_uri':
    "put in Google's consent URL, where Google sends the browser back only if it is registered with the platform's client; never fetched",
  'createAgent workflow_configurations.transfer.destinations[].address': 'a phone number or SIP URI the provider dials',
  'updateAgent workflow_configurations.transfer.destinations[].address': 'a phone number or SIP URI the provider dials',
  'purchaseNumber end_user.address': 'a postal address',
  'createAgentFromScript analysis.facts.address': 'a postal address read from a script',
};
const URL_LIKE_NAME = /(^|_)(url|uri|href|endpoint|host|hostname|address|link|callback|webhook)s?$/i;

const document = buildOpenApiDocument(ROUTES, 'http://127.0.0.1/api/v1') as Schema;
const deref = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;

/** Every property of a request schema, with its location (`[]` for list items). */
function visitProperties(
  schema: Schema | undefined,
  location: string[],
  visit: (name: string, property: Schema, location: string[]) => void,
  seen = new Set<Schema>(),
): void {
  const resolved = deref(schema);
  if (!resolved || seen.has(resolved)) return;
  seen.add(resolved);
  for (const part of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
    visitProperties(part, location, visit, new Set(seen));
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) {
    visit(name, deref(property)!, [...location, name]);
    visitProperties(property, [...location, name], visit, new Set(seen));
  }
  if (resolved.items) visitProperties(resolved.items, [...location.slice(0, -1), `${location.at(-1)}[]`], visit, seen);
}

const operations = Object.entries<Schema>(document.paths).flatMap(([path, methods]) =>
  Object.entries<Schema>(methods).map(([method, operation]) => ({
    path,
    method: method.toUpperCase(),
    operation,
    body: operation.requestBody?.content?.['application/json']?.schema as Schema | undefined,
  })),
);

/** A property's own schema and those it wraps (nullable, defaults): where a marker may sit. */
const markedWith = (property: Schema, marker: string): unknown =>
  [property, ...(property.anyOf ?? []), ...(property.oneOf ?? []), ...(property.allOf ?? [])]
    .map(deref)
    .map((part) => part?.[marker])
    .find((value) => value !== undefined);

const guardedFields: GuardedField[] = operations.flatMap(({ path, method, operation, body }) => {
  const found: GuardedField[] = [];
  visitProperties(body, [], (_name, property, location) => {
    const field = { operationId: operation.operationId, method, path };
    if (markedWith(property, GUARDED_URL)) found.push({ ...field, location });
    for (const key of (markedWith(property, GUARDED_URL_KEYS) as string[] | undefined) ?? [])
      found.push({ ...field, location: [...location, key] });
  });
  return found;
});
const label = (field: GuardedField) => `${field.operationId} ${field.location.join('.')}`;

describe('the enumeration of customer-settable URLs', () => {
  it('finds every URL the platform fetches', () => {
    expect(guardedFields.map(label)).toEqual(
      expect.arrayContaining([
        'createWebhook url',
        'createTool url',
        'setModelKey api_url',
        'setSpeechKey api_url',
        'analyzeScript url',
        'createCampaign source_config.ics_url',
        'createAgent workflow_definition.nodes[].pre_call_fetch.url',
        'updateAgent workflow_definition.nodes[].pre_call_fetch.url',
      ]),
    );
  });

  it('leaves no URL-like request field unmarked (mark it with guardedUrl, or say here why it is never fetched)', () => {
    const unmarked: string[] = [];
    for (const { operation, body } of operations) {
      visitProperties(body, [], (name, property, location) => {
        const urlLike = URL_LIKE_NAME.test(name) || property.format === 'uri' || property.format === 'url';
        const where = `${operation.operationId} ${location.join('.')}`;
        if (urlLike && !markedWith(property, GUARDED_URL) && !Object.hasOwn(NOT_FETCHED, where)) unmarked.push(where);
      });
      for (const parameter of operation.parameters ?? [])
        if (URL_LIKE_NAME.test(parameter.name))
          unmarked.push(`${operation.operationId} ${parameter.in} ${parameter.name}`);
    }
    expect(unmarked).toEqual([]);
  });
});

/** Forbidden addresses, and what the refusal names. */
const LITERALS: [string, string, RegExp][] = [
  [
    'instance metadata',
    'https://169.254.169.254/latest/meta-data/iam/security-credentials/?',
    /169\.254\.169\.254 is not a public address \(link-local\)/,
  ],
  [
    'ECS task credentials',
    'https://169.254.170.2/v2/credentials?',
    /169\.254\.170\.2 is not a public address \(link-local\)/,
  ],
  [
    'instance metadata over IPv6',
    'https://[fd00:ec2::254]/latest/meta-data/',
    /fd00:ec2::254 is not a public address \(unique-local\)/,
  ],
  ['a private network', 'https://10.0.0.5:8080/internal', /10\.0\.0\.5 is not a public address \(private\)/],
  ['a private network (192.168/16)', 'https://192.168.1.10/', /192\.168\.1\.10 is not a public address \(private\)/],
  ['IPv6 link-local', 'https://[fe80::1]/', /fe80::1 is not a public address \(link-local\)/],
  [
    'IPv4-mapped metadata',
    'https://[::ffff:169.254.169.254]/',
    /is not a public address \(ipv4-mapped, carrying 169\.254\.169\.254\)/,
  ],
  ['loopback', 'https://127.0.0.1:6379/', /127\.0\.0\.1 is not a public address \(loopback\)/],
  ['IPv6 loopback', 'https://[::1]:6379/', /::1 is not a public address \(loopback\)/],
  ['this host (0.0.0.0)', 'https://0.0.0.0:8080/', /0\.0\.0\.0 is not a public address/],
];
const NAMES: [string, string, RegExp][] = [
  [
    'a name resolving to the metadata address',
    'https://metadata.attacker.test/latest/meta-data/',
    /metadata\.attacker\.test resolves to 169\.254\.169\.254, which is not a public address \(link-local\)/,
  ],
  [
    'a name resolving to a private address',
    'https://internal.attacker.test:8080/',
    /internal\.attacker\.test resolves to 10\.0\.0\.5, which is not a public address \(private\)/,
  ],
  [
    'a name with a loopback answer among public ones',
    'https://rebinding.attacker.test/',
    /resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/,
  ],
  ['plain http to a public name', 'http://public.attacker.test/', /Only https URLs may be fetched, not http/],
];
const ADDRESSES = needsLocalStack ? LITERALS : [...LITERALS, ...NAMES];

/** A second gateway on the same emulators whose functions run as on AWS: OUTBOUND_ALLOW_LOOPBACK unset. */
let deployedLike: LocalGateway | undefined;
let api: ReturnType<typeof apiClient>;
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  if (needsLocalStack) api = apiClient();
  else {
    Object.assign(process.env, inject('stackEnv'));
    configureLocalFunctions({ ...inject('stackEnv'), OUTBOUND_ALLOW_LOOPBACK: 'false' });
    deployedLike = await startLocalGateway({ port: 0, authorizerCacheTtlSeconds: 1 });
    api = apiClient(`${deployedLike.origin}${API_PREFIX}`);
  }
  org = await newOrganization('Customer URLs');
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Guarded' } })).body;
});
afterAll(async () => deployedLike?.close());

/** What an operation's request example needs so that the URL is the one used. */
const reaching = (): Record<string, Record<string, unknown>> => ({
  createCampaign: { workflow_id: agent.id, source_type: 'calendar', manual_contacts: undefined, source_config: {} },
});

/** A sound flow whose start fetches `url` before the call. */
const flowFetching = (url: string) => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Start',
      prompt: 'Greet.',
      pre_call_fetch: { url, variables: ['tier'] },
    },
    { id: 'end', type: 'endCall', name: 'End' },
  ],
  edges: [{ source: 'start', target: 'end' }],
});

function requestSetting(field: GuardedField, url: string): { path: string; body: Schema } {
  const values: Record<string, string> = { agent_id: agent.public_id, provider: 'openai' };
  const path = field.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    if (!values[name]) throw new Error(`No value for the path parameter ${name} of ${field.operationId}: add one here`);
    return values[name];
  });
  const body: Schema = structuredClone({
    ...(REQUEST_EXAMPLES[field.operationId] as Schema),
    ...reaching()[field.operationId],
  });
  if (field.location.join('.') === 'workflow_definition.nodes[].pre_call_fetch.url') {
    body.workflow_definition = flowFetching(url);
    return { path, body };
  }
  let parent = body;
  for (const key of field.location.slice(0, -1)) {
    if (key.endsWith('[]')) throw new Error(`${label(field)}: a URL in a list needs its own placement here`);
    parent = parent[key] ??= {};
  }
  parent[field.location.at(-1)!] = url;
  return { path, body };
}

const messageOf = (body: Schema): string =>
  typeof body.detail === 'string' ? body.detail : (body.detail ?? []).map((item: Schema) => item.msg).join('; ');

describe('every customer-settable URL refuses forbidden addresses when given (as on AWS)', () => {
  describe.each(guardedFields.map((field) => [label(field), field] as const))('%s', (_label, field) => {
    it.each(ADDRESSES)('refuses %s: a clear 4xx naming why', async (_case, url, reason) => {
      const { path, body } = requestSetting(field, url);
      const response = await api.request(field.method, path, { key: org.key, body });
      expect([400, 422], `${response.status} ${response.text}`).toContain(response.status);
      expect(messageOf(response.body)).toMatch(reason);
    });
  });

  it('wrote nothing for any of them', async () => {
    const read = async (path: string) => (await api.request('GET', path, { key: org.key })).body;
    expect((await read('/model-key')).configured).toBe(false);
    expect((await read('/speech-keys')).items).toEqual([]);
    expect((await read('/webhooks')).items).toEqual([]);
    expect((await read(`/agents/${agent.public_id}/tools`)).items).toEqual([]);
    expect((await read('/campaigns')).items).toEqual([]);
  });
});

/**
 * The local stack is for trying things on a laptop: a tool on this machine over plain http works
 * there (the local stack sets OUTBOUND_ALLOW_LOOPBACK), and is reached for real through the guard;
 * on AWS only https to public addresses.
 */
describe.skipIf(needsLocalStack)('a tool on this machine over plain http', () => {
  const received: IncomingMessage[] = [];
  const endpoint = createServer((request, response) => {
    received.push(request);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"forecast":"sunny"}');
  });
  let toolUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    toolUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/weather`;
  });
  afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));

  const tool = () => ({
    name: 'weather_forecast',
    description: 'The forecast for a day',
    method: 'GET',
    url: toolUrl,
    parameters: { properties: { day: { type: 'string' } }, required: ['day'] },
  });

  it('is refused as on AWS: plain http, and loopback over https', async () => {
    const http = await api.request('POST', `/agents/${agent.public_id}/tools`, { key: org.key, body: tool() });
    expect(http.status).toBe(400);
    expect(http.body.detail).toBe('Tool URL refused: Only https URLs may be fetched, not http');
    const https = await api.request('POST', `/agents/${agent.public_id}/tools`, {
      key: org.key,
      body: { ...tool(), url: toolUrl.replace('http:', 'https:') },
    });
    expect(https.status).toBe(400);
    expect(https.body.detail).toMatch(/^Tool URL refused: 127\.0\.0\.1 is not a public address \(loopback\)/);
  });

  it('is accepted on the local stack and called during a chat', { timeout: 60_000 }, async () => {
    const local = apiClient();
    const own = await newOrganization('Local tool');
    const localAgent = (
      await local.request('POST', '/agents', {
        key: own.key,
        body: { name: 'Weather', workflow_definition: { greeting: 'Hello.' } },
      })
    ).body;
    const created = await local.request('POST', `/agents/${localAgent.public_id}/tools`, {
      key: own.key,
      body: tool(),
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(toolUrl);

    const conversation = await local.request('POST', `/agents/${localAgent.public_id}/conversations`, {
      key: own.key,
      body: { mode: 'chat', name: 'Weather chat' },
    });
    expect(conversation.status).toBe(200);
    const { session } = conversation.body as { session: { url: string; run_ref: string; token: string } };
    const ws = new WebSocket(session.url);
    const texts: string[] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { event: string; text?: string };
      if (frame.event === 'mark') ws.send(JSON.stringify(frame));
      if (frame.event === 'text') texts.push(frame.text!);
    });
    const closed = new Promise((resolve) => ws.on('close', resolve));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(
      JSON.stringify({
        event: 'start',
        start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } },
      }),
    );
    await eventually(() => (texts.length > 0 ? true : undefined));
    ws.send(JSON.stringify({ event: 'message', text: 'What is the weather tomorrow?' }));
    await eventually(() => (texts.some((text) => text.includes('sunny')) ? true : undefined));
    ws.send(JSON.stringify({ event: 'message', text: 'Thank you, goodbye.' }));
    await closed;

    expect(received).toHaveLength(1);
    expect(received[0]!.method).toBe('GET');
    expect(received[0]!.url).toBe(
      `/weather?day=${encodeURIComponent('What is the weather tomorrow?').replace(/%20/g, '+')}`,
    );
  });
});
