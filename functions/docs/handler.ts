import { docsRoutes } from '../../shared/api/routes/docs.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { errorResult, type HttpResult } from '../../shared/http/response.ts';
import { swaggerUiAsset } from './swagger-ui.ts';

/** Scripts and styles only from this API: the page works offline and runs no injected code. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Asset and document addresses are absolute paths under the API's base path (stage or custom
 * domain included), so the page works at `/public-docs` and `/public-docs/` alike.
 */
const docsPage = (basePath: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Voice Agent Platform API</title>
  <link rel="stylesheet" href="${basePath}/public-docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui" data-openapi-url="${basePath}/public-openapi.json"></div>
  <script src="${basePath}/public-docs/swagger-ui-bundle.js"></script>
  <script src="${basePath}/public-docs/init.js"></script>
</body>
</html>`;

// Separate file rather than an inline script, so the CSP needs no 'unsafe-inline' for scripts.
// Summaries, descriptions and request examples of every operation are rendered by Swagger UI;
// `displayOperationId` shows the name a generated client uses.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: document.getElementById('swagger-ui').dataset.openapiUrl,
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  persistAuthorization: false,
});`;

const text = (body: string, contentType: string, extra: Record<string, string> = {}): HttpResult => ({
  status: 200,
  rawBody: body,
  headers: { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', ...extra },
});

/** Per base URL: the same function can be reached through the stage URL and a custom domain. */
const documents = new Map<string, string>();

export const handler = createApiHandler([
  operation(docsRoutes.openapiDocument, async (_input, { event }) => {
    const baseUrl = requestBaseUrl(event);
    let document = documents.get(baseUrl);
    if (!document) {
      // The whole route table and its schemas load with the first document request, not with the
      // page and its assets.
      const [{ ROUTES }, { buildOpenApiDocument }] = await Promise.all([
        import('../../shared/api/routes.ts'),
        import('../../shared/openapi/document.ts'),
      ]);
      document = JSON.stringify(buildOpenApiDocument(ROUTES, baseUrl));
      documents.set(baseUrl, document);
    }
    return text(document, 'application/json');
  }),
  operation(docsRoutes.docsPage, async (_input, { event }) =>
    text(docsPage(new URL(requestBaseUrl(event)).pathname), 'text/html; charset=utf-8', {
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    }),
  ),
  operation(docsRoutes.docsAsset, async ({ params }) => {
    if (params.asset === 'init.js') return text(INIT_SCRIPT, 'text/javascript; charset=utf-8');
    const asset = swaggerUiAsset(params.asset);
    return asset
      ? text(asset.body, asset.contentType, { 'Cache-Control': 'public, max-age=86400' })
      : errorResult(404, 'Not Found');
  }),
]);
