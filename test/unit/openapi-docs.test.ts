import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.ts';
import { PARAMETER_EXAMPLES, REQUEST_EXAMPLES } from '../../shared/openapi/examples.ts';
import { buildOpenApiDocument } from '../../shared/openapi/document.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from '../../shared/schemas/webhook-events.ts';

type Schema = Record<string, any>;
const document = buildOpenApiDocument(ROUTES, 'http://127.0.0.1/api/v1') as Schema;
const publicRoutes = ROUTES.filter((route) => !route.internal);
const operationOf = (route: (typeof ROUTES)[number]) =>
  document.paths[route.path][route.method.toLowerCase()] as Schema;

describe('OpenAPI document: every operation documented, with a request example', () => {
  it.each(publicRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
    const operation = operationOf(route);
    expect(operation.summary.length).toBeGreaterThan(5);
    expect(operation.description.length).toBeGreaterThan(operation.summary.length > 60 ? 20 : 30);
    // The curl request, in the description (rendered by the reference page) and as a code sample.
    expect(operation.description).toContain('```sh\ncurl -s -X');
    expect(operation['x-codeSamples'][0].source).toMatch(new RegExp(`^curl -s -X ${route.method} "\\$BASE/`));

    // Path and required query values have an example the route itself accepts.
    const params = Object.fromEntries(
      Object.keys(route.request.params?.shape ?? {}).map((name) => [name, PARAMETER_EXAMPLES[name]]),
    );
    if (route.request.params) expect(route.request.params.safeParse(params).success, JSON.stringify(params)).toBe(true);
    for (const parameter of (operation.parameters ?? []).filter(
      (candidate: Schema) => candidate.in === 'path' || (candidate.in === 'query' && candidate.required),
    )) {
      expect(parameter.example, parameter.name).toBeDefined();
    }

    // A JSON body has an example that passes the operation's own validation.
    if (route.request.body) {
      const example = REQUEST_EXAMPLES[route.operationId];
      expect(example, route.operationId).toBeDefined();
      const parsed = route.request.body.safeParse(example);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(operation.requestBody.content['application/json'].example).toEqual(example);
    }
  });

  it('has no request example left over for an operation without a body', () => {
    const withBody = new Set(publicRoutes.filter((route) => route.request.body).map((route) => route.operationId));
    expect(Object.keys(REQUEST_EXAMPLES).filter((operationId) => !withBody.has(operationId))).toEqual([]);
  });

  it('describes every webhook event with its payload schema and a valid example', () => {
    expect(Object.keys(document.webhooks)).toEqual(WEBHOOK_EVENT_TYPES);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const webhook = document.webhooks[type].post;
      expect(webhook.summary).toContain(type);
      expect(webhook.description.length).toBeGreaterThan(40);
      const content = webhook.requestBody.content['application/json'];
      expect(content.schema.$ref).toMatch(/Event$/);
      expect(WEBHOOK_EVENTS[type].safeParse(content.example).success).toBe(true);
      expect(webhook.parameters.map((parameter: Schema) => parameter.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
  });
});
