import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { GATEWAY_ERRORS } from '../../shared/api/gateway.ts';
import { createRouteMatcher } from '../../shared/api/route-matcher.ts';
import { ROUTES } from '../../shared/api/routes.ts';
import { errorResult, toProxyResult } from '../../shared/http/response.ts';

const matchRoute = createRouteMatcher(ROUTES);

/**
 * Answers what no endpoint does: API Gateway sends it every method a resource does not define
 * (`ANY`) and every unknown path (`{proxy+}`). A known path with another method is 405 with
 * `Allow`, as FastAPI answers; anything else is 404.
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const match = matchRoute(event.httpMethod, event.path);
  if (match.kind === 'method-not-allowed') {
    const { status, detail } = GATEWAY_ERRORS.methodNotAllowed;
    return toProxyResult(errorResult(status, detail, { Allow: match.allowed.join(', ') }));
  }
  const { status, detail } = GATEWAY_ERRORS.notFound;
  return toProxyResult(errorResult(status, detail));
}
