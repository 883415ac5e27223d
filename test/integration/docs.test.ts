import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.ts';
import { apiClient } from '../support/api.ts';

const api = apiClient();

describe('public documentation', () => {
  it('serves an OpenAPI 3.1 document listing every route with the API-key scheme and the 422 schema', async () => {
    const { status, body } = await api.request('GET', '/public-openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(body.servers).toEqual([{ url: api.baseUrl, 'x-internal': false }]);
    expect(body.components.securitySchemes.APIKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(body.components.schemas.HTTPValidationError.properties.detail.type).toBe('array');
    for (const route of ROUTES.filter((candidate) => !candidate.internal)) {
      const documented = body.paths[route.path]?.[route.method.toLowerCase()];
      expect(documented?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      expect(documented.security).toEqual(route.public ? [] : [{ APIKeyHeader: [] }]);
    }
    expect(body.paths['/agents'].post.responses['422'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/HTTPValidationError',
    );
  });

  it('serves the reference page and its assets from this API, with no CDN', async () => {
    const page = await api.request('GET', '/public-docs');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const asset of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const response = await fetch(new URL(asset[1]!, `${api.baseUrl}/public-docs`));
      expect(response.status, asset[1]).toBe(200);
      expect((await response.text()).length).toBeGreaterThan(10);
    }
    expect((await api.request('GET', '/public-docs/../../etc/passwd')).status).toBe(404);

    // With a trailing slash: redirected to the page, whose addresses do not depend on the slash.
    const slashed = await fetch(`${api.baseUrl}/public-docs/`, { redirect: 'manual' });
    expect(slashed.status).toBe(307);
    expect(new URL(slashed.headers.get('location')!, `${api.baseUrl}/public-docs/`).href).toBe(
      `${api.baseUrl}/public-docs`,
    );
    const followed = await fetch(`${api.baseUrl}/public-docs/`);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain('swagger-ui-bundle.js');
    const init = await api.request('GET', '/public-docs/init.js');
    expect(init.text).toContain('dataset.openapiUrl');
    expect(page.text).toContain(`data-openapi-url="${new URL(api.baseUrl).pathname}/public-openapi.json"`);
    expect((await api.request('GET', '/public-docs/package.json')).status).toBe(404);
  });
});
