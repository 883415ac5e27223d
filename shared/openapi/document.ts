import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { API_KEY_HEADER } from '../api/gateway.ts';
import { MAX_JSON_DEPTH, MAX_LIST_BODY_BYTES } from '../http/json-limits.ts';
import type { ResponseSpec, Route } from '../api/route.ts';
import { INTERNAL_ERROR, RATE_LIMITED, STANDARD_HEADERS } from './standard-responses.ts';
import { HTTPValidationError } from '../schemas/common.ts';
import { MAX_MESSAGE_ID_CHARS } from '../schemas/bounds.ts';
import { curlExample, PARAMETER_EXAMPLES, REQUEST_EXAMPLES } from './examples.ts';
import { SessionClientFrame, SessionEvent } from '../schemas/sessions.ts';
import { FlowDefinition } from '../schemas/flows.ts';
import { EVENT_DESCRIPTIONS, sampleEvent, WEBHOOK_EVENTS, type WebhookEventType } from '../schemas/webhook-events.ts';

const SECURITY_SCHEME = 'APIKeyHeader';

const DESCRIPTION = `REST API of the voice agent platform.

- **Authentication**: every endpoint except the documentation takes the organization's API key in the \`${API_KEY_HEADER}\` header. A missing, unknown or revoked key gives 401 (an \`Authorization: Bearer\` header is not read); a resource of another organization gives 404, as if it did not exist.
- **Errors**: \`{"detail": "<reason>"}\`; validation errors are 422 with FastAPI's body \`{"detail": [{"loc", "msg", "type"}]}\`. Malformed JSON is a 422 \`json_invalid\`. An unknown path is 404, a wrong method 405 with \`Allow\`.
- **Pagination**: \`page\` (from 1) and \`limit\` (default 20, at most 100); responses carry \`total_count\` and \`total_pages\`.
- **Limits**: a request body is at most 6,000,000 bytes, 4,600,000 for binary types (multipart, PDF, WAV, octet-stream), so that it fits a Lambda event (413 \`{detail}\` beyond). JSON nests at most ${MAX_JSON_DEPTH} levels, the body being the first, and may not use the keys \`__proto__\` or \`constructor\` (422 \`value_error\` at the place). Every string and list has a \`maxLength\`/\`maxItems\`, every free-form object a stored-size cap (\`x-max-stored-bytes\`, counted as DynamoDB counts item size); beyond them a 422. A 422 echoes each \`input\` unless the items would pass 64 kB, then long strings are cut and nested values emptied. A body sent with a Content-Type other than JSON is not read as JSON (422 \`model_attributes_type\` whose \`ctx.error\` says so); without one it is read as JSON.
- **Size of answers**: no body exceeds ${MAX_LIST_BODY_BYTES / 1_000_000} MB (Lambda answers at most 6 MB). A page whose items would pass it holds the first items that fit and carries \`X-Truncated: true\`; \`GET /agents\` without paging adds \`X-Total-Count\` and a \`Link\` to the next page.
- **Timestamps**: ISO 8601 with an offset, in UTC.`;

function toRouteConfig(route: Route): RouteConfig {
  const { request } = route;
  const example = REQUEST_EXAMPLES[route.operationId];
  return {
    method: route.method.toLowerCase() as RouteConfig['method'],
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    // The curl example in the description: the reference page renders it under every operation.
    description: `${route.description}\n\n**Example**\n\n\`\`\`sh\n${curlExample(route)}\n\`\`\``,
    tags: route.tags,
    security: route.public ? [] : [{ [SECURITY_SCHEME]: [] }],
    request: {
      params: request.params,
      query: request.query,
      headers: request.headers,
      body: request.body
        ? {
            required: request.bodyRequired !== false,
            content: { 'application/json': { schema: request.body, ...(example === undefined ? {} : { example }) } },
          }
        : request.multipart && { required: true, content: { 'multipart/form-data': { schema: request.multipart } } },
    },
    responses: Object.fromEntries(
      Object.entries(withStandardResponses(route.responses)).map(([status, response]) => [
        status,
        {
          description: response.description,
          headers: { ...response.headers, ...STANDARD_HEADER_REFS } as ResponseConfig['headers'],
          content:
            response.schema || response.contentType
              ? { [response.contentType ?? 'application/json']: { schema: response.schema ?? {} } }
              : undefined,
        },
      ]),
    ),
  };
}

/** Every header of STANDARD_HEADERS, by reference to its component. */
const STANDARD_HEADER_REFS = Object.fromEntries(
  Object.keys(STANDARD_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

/**
 * Every operation may answer 429 (the organization's rate limit, from the gateway) and 500; a
 * route that answers 429 itself (channel capacity) keeps its description, with the rate limit added.
 */
function withStandardResponses(responses: Record<number, ResponseSpec>): Record<number, ResponseSpec> {
  const own = responses[429];
  return {
    ...responses,
    429: own ? { ...own, description: `${own.description}; or ${lowerFirst(RATE_LIMITED.description)}` } : RATE_LIMITED,
    500: responses[500] ?? INTERNAL_ERROR,
  };
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

const WEBHOOK_HEADERS = z.object({
  'webhook-id': z.string().max(MAX_MESSAGE_ID_CHARS).openapi({
    description: 'Unique per event and endpoint; the same on every retry and redelivery (deduplicate on it).',
    example: 'msg_1-1001_wh_Ab3dE6gH9jK2mN5p',
  }),
  'webhook-timestamp': z.string().max(12).openapi({
    description: 'Unix seconds of this attempt; reject values far from now (replay protection).',
    example: '1795428942',
  }),
  // Two signatures at most (a rotation's old and new secret): `v1,` and 44 base64 characters each.
  'webhook-signature': z.string().max(128).openapi({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per active secret (two during a secret rotation).',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

/** The `webhooks` section: one POST per event of the catalogue, as the platform sends it to subscribers. */
function registerWebhookEvents(registry: OpenAPIRegistry): void {
  for (const [type, schema] of Object.entries(WEBHOOK_EVENTS) as [
    WebhookEventType,
    (typeof WEBHOOK_EVENTS)[WebhookEventType],
  ][]) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      summary: `The \`${type}\` event`,
      description: `${EVENT_DESCRIPTIONS.get(type)} Signed per Standard Webhooks; answer 2xx within 10 s, anything else is retried.`,
      tags: ['Webhooks'],
      request: {
        headers: WEBHOOK_HEADERS,
        body: { required: true, content: { 'application/json': { schema, example: sampleEvent(type) } } },
      },
      responses: {
        200: { description: 'Received (any 2xx)' },
        410: { description: 'Gone: the platform disables this endpoint' },
      },
    });
  }
}

/** The OpenAPI 3.1 document of the route table: generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: readonly Route[], serverUrl: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: API_KEY_HEADER,
  });
  for (const [name, header] of Object.entries(STANDARD_HEADERS))
    registry.registerComponent('headers', name, { ...header });
  registry.register('HTTPValidationError', HTTPValidationError);
  // Not in any operation: the frames of a conversation's session WebSocket (SessionAccess).
  registry.register('SessionClientFrame', SessionClientFrame);
  registry.register('SessionEvent', SessionEvent);
  registry.register('FlowDefinition', FlowDefinition);
  for (const route of routes) if (!route.internal) registry.registerPath(toRouteConfig(route));
  registerWebhookEvents(registry);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Voice Agent Platform API', version: '1.0.0', description: DESCRIPTION },
    // Public (OWASP API9: every server says its audience).
    servers: [{ url: serverUrl, 'x-internal': false } as never],
    security: [{ [SECURITY_SCHEME]: [] }],
  });
  addParameterExamples((document.paths ?? {}) as unknown as Record<string, Record<string, unknown>>, routes);
  return document;
}

type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; example?: unknown }[];
  'x-codeSamples'?: unknown;
};

/** Examples of path and required query values, and the curl command as `x-codeSamples` (Redoc and others show it). */
function addParameterExamples(paths: Record<string, Record<string, unknown>>, routes: readonly Route[]): void {
  const byId = new Map(routes.map((route) => [route.operationId, route]));
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations) as Operation[]) {
      const route = operation.operationId ? byId.get(operation.operationId) : undefined;
      if (!route) continue;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'header' && Object.hasOwn(PARAMETER_EXAMPLES, parameter.name))
          parameter.example ??= PARAMETER_EXAMPLES[parameter.name];
      }
      operation['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source: curlExample(route) }];
    }
  }
}
