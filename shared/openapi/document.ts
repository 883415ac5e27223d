import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_KEY_HEADER } from '../api/gateway.ts';
import { MAX_JSON_DEPTH, MAX_LIST_BODY_BYTES } from '../http/json-limits.ts';
import type { Route } from '../api/route.ts';
import { HTTPValidationError } from '../schemas/common.ts';

const SECURITY_SCHEME = 'APIKeyHeader';

const DESCRIPTION = `REST API of the voice agent platform.

- **Authentication**: every endpoint except the documentation takes the organization's API key in the \`${API_KEY_HEADER}\` header. A missing, unknown or revoked key gives 401 (an \`Authorization: Bearer\` header is not read); a resource of another organization gives 404, as if it did not exist.
- **Errors**: \`{"detail": "<reason>"}\`; validation errors are 422 with FastAPI's body \`{"detail": [{"loc", "msg", "type"}]}\`. Malformed JSON is a 422 \`json_invalid\`. An unknown path is 404, a wrong method 405 with \`Allow\`.
- **Pagination**: \`page\` (from 1) and \`limit\` (default 20, at most 100); responses carry \`total_count\` and \`total_pages\`.
- **Limits**: a request body is at most 10 MB and its Lambda event 6 MB (413 beyond). JSON nests at most ${MAX_JSON_DEPTH} levels, the body being the first, and may not use the keys \`__proto__\` or \`constructor\` (422 \`value_error\` at the place). Every string and list has a \`maxLength\`/\`maxItems\`, every free-form object a stored-size cap (\`x-max-stored-bytes\`, counted as DynamoDB counts item size); beyond them a 422. A 422 echoes each \`input\` unless the items would pass 64 kB, then long strings are cut and nested values emptied. A body sent with a Content-Type other than JSON is not read as JSON (422 \`model_attributes_type\` whose \`ctx.error\` says so); without one it is read as JSON.
- **Size of answers**: no body exceeds ${MAX_LIST_BODY_BYTES / 1_000_000} MB (Lambda answers at most 6 MB). A page whose items would pass it holds the first items that fit and carries \`X-Truncated: true\`; \`GET /agents\` without paging adds \`X-Total-Count\` and a \`Link\` to the next page.
- **Timestamps**: ISO 8601 with an offset, in UTC.`;

function toRouteConfig(route: Route): RouteConfig {
  const { request } = route;
  return {
    method: route.method.toLowerCase() as RouteConfig['method'],
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: route.tags,
    security: route.public ? [] : [{ [SECURITY_SCHEME]: [] }],
    request: {
      params: request.params,
      query: request.query,
      headers: request.headers,
      body: request.body
        ? { required: request.bodyRequired !== false, content: { 'application/json': { schema: request.body } } }
        : request.multipart && { required: true, content: { 'multipart/form-data': { schema: request.multipart } } },
    },
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          headers: response.headers,
          content:
            response.schema || response.contentType
              ? { [response.contentType ?? 'application/json']: { schema: response.schema ?? {} } }
              : undefined,
        },
      ]),
    ),
  };
}

/** The OpenAPI 3.1 document of the route table: generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: readonly Route[], serverUrl: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, { type: 'apiKey', in: 'header', name: API_KEY_HEADER });
  registry.register('HTTPValidationError', HTTPValidationError);
  for (const route of routes) if (!route.internal) registry.registerPath(toRouteConfig(route));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Voice Agent Platform API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: serverUrl }],
    security: [{ [SECURITY_SCHEME]: [] }],
  });
}
