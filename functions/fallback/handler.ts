import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { GATEWAY_ERRORS, preflightHeaders } from '../../shared/api/gateway.ts';
import { createRouteMatcher } from '../../shared/api/route-matcher.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { errorResult, toProxyResult } from '../../shared/http/response.ts';

const matchRoute = createRouteMatcher(ROUTES);

/**
 * `/public-docs/` (any known path with one trailing slash) redirects to the path without it, as
 * FastAPI's `redirect_slashes` did (307). The target is relative to the request, so it holds under
 * a stage or a custom domain's base path.
 */
function trailingSlashRedirect(event: APIGatewayProxyEvent): APIGatewayProxyResult | undefined {
  const path = event.path;
  if (!path.endsWith('/') || path.endsWith('//')) return undefined;
  const trimmed = path.slice(0, -1);
  if (matchRoute(event.httpMethod, trimmed).kind !== 'route') return undefined;
  const query = new URLSearchParams(
    Object.entries(event.queryStringParameters ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  ).toString();
  const location = `../${encodeURIComponent(decodeURIComponent(trimmed.slice(trimmed.lastIndexOf('/') + 1)))}${query ? `?${query}` : ''}`;
  return { statusCode: 307, headers: { Location: location }, body: '' };
}

/**
 * Answers what no endpoint does: API Gateway sends it every method a resource does not define
 * (`ANY`) and every unknown path (`{proxy+}`). A browser's CORS preflight (OPTIONS) of a known path
 * is 204 with the methods it has; another method of a known path is 405 with `Allow`, as FastAPI
 * answers; anything else is 404.
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const slashRedirect = trailingSlashRedirect(event);
  if (slashRedirect) return slashRedirect;
  const match = matchRoute(event.httpMethod, event.path);
  if (event.httpMethod === 'OPTIONS' && match.kind === 'method-not-allowed') {
    return toProxyResult({ status: 204, headers: preflightHeaders(match.allowed) });
  }
  if (match.kind === 'method-not-allowed') {
    const { status, detail } = GATEWAY_ERRORS.methodNotAllowed;
    return toProxyResult(errorResult(status, detail, { Allow: match.allowed.join(', ') }));
  }
  const { status, detail } = GATEWAY_ERRORS.notFound;
  return toProxyResult(errorResult(status, detail));
}
