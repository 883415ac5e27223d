import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { GATEWAY_ERRORS } from '../api/gateway.ts';
import { resourcePath, type OperationInput, type Route, type RouteRequest } from '../api/route.ts';
import { UnauthorizedError } from '../domain/errors.ts';
import { logger } from '../observability/logger.ts';
import { errorToResult } from './errors.ts';
import { MAX_LIST_BODY_BYTES, takeWithinBytes } from './json-limits.ts';
import { organizationRateLimitHeaders } from './rate-limit.ts';
import { parseRequest } from './request.ts';
import { errorResult, toProxyResult, type HttpResult } from './response.ts';

/** Who is calling, as established by the API-key authorizer. */
export interface Caller {
  organizationId: number;
  keyId: string;
}

export interface RequestContext {
  requestId: string;
  event: APIGatewayProxyEvent;
  /** Absent only on public routes. */
  caller?: Caller;
}

export type Operation<Req extends RouteRequest> = (
  input: OperationInput<Req>,
  context: RequestContext,
) => Promise<HttpResult>;

export interface BoundOperation {
  route: Route;
  run: (event: APIGatewayProxyEvent, context: RequestContext) => Promise<HttpResult>;
}

/**
 * Success bodies pass through the route's response schema: fields come out in the documented
 * order, and a body that breaks the contract fails loudly here instead of reaching a client.
 */
function serializeResponse(route: Route, result: HttpResult): HttpResult {
  const schema = route.responses[result.status]?.schema;
  if (!schema || result.body === undefined || result.rawBody !== undefined) return result;
  return { ...result, body: schema.parse(result.body) };
}

/**
 * Lambda answers at most 6 MB. A page whose items would pass the list budget keeps the first items
 * that fit and says so in `X-Truncated` (`total_count` is unchanged; a smaller `limit` gets the rest).
 */
function withinListBudget(result: HttpResult): HttpResult {
  const body = result.body as { items?: unknown[] } | undefined;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.items)) return result;
  const size = Buffer.byteLength(JSON.stringify(body));
  if (size <= MAX_LIST_BODY_BYTES) return result;
  const envelope = size - Buffer.byteLength(JSON.stringify(body.items));
  const fitted = takeWithinBytes(body.items, MAX_LIST_BODY_BYTES - envelope);
  return { ...result, body: { ...body, items: fitted.items }, headers: { ...result.headers, 'X-Truncated': 'true' } };
}

/** Pairs a route of the table with its implementation; validation happens before `impl` runs. */
export function operation<Req extends RouteRequest>(route: Route<Req>, impl: Operation<Req>): BoundOperation {
  return {
    route: route as unknown as Route,
    run: async (event, context) =>
      withinListBudget(serializeResponse(route as unknown as Route, await impl(parseRequest(route, event), context))),
  };
}

/** The organization of a private route's caller. */
export function callerOf(context: RequestContext): Caller {
  if (!context.caller) throw new UnauthorizedError(GATEWAY_ERRORS.unauthorized.detail);
  return context.caller;
}

function callerFrom(event: APIGatewayProxyEvent): Caller | undefined {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const organizationId = Number(authorizer?.organizationId);
  if (!authorizer || !Number.isInteger(organizationId) || organizationId <= 0) return undefined;
  return { organizationId, keyId: String(authorizer.keyId ?? '') };
}

/**
 * The Lambda handler of one endpoint group: dispatches on API Gateway's `httpMethod` + `resource`
 * to the operation, and turns every outcome (including validation and unexpected errors) into a
 * `{detail}` response.
 */
export function createApiHandler(operations: BoundOperation[]) {
  const byKey = new Map(operations.map((op) => [`${op.route.method} ${resourcePath(op.route)}`, op]));

  const dispatch = async (event: APIGatewayProxyEvent, _context: Context): Promise<APIGatewayProxyResult> => {
    const requestId = event.requestContext?.requestId ?? '';
    const caller = callerFrom(event);
    logger.appendKeys({ requestId, organizationId: caller?.organizationId });
    const op = byKey.get(`${event.httpMethod} ${event.resource}`);
    if (!op) return toProxyResult(errorResult(404, 'Not Found'));
    if (!op.route.public && !caller) return toProxyResult(errorResult(401, GATEWAY_ERRORS.unauthorized.detail));
    let result: HttpResult;
    try {
      result = await op.run(event, { requestId, event, caller });
    } catch (error) {
      result = errorToResult(error);
    }
    if (!caller) return toProxyResult(result);
    // The usage plan's quota as far as this instance knows it (see rate-limit.ts); 429s of the API keep their Retry-After.
    return toProxyResult({
      ...result,
      headers: { ...organizationRateLimitHeaders(caller.organizationId), ...result.headers },
    });
  };

  return middy(dispatch).use(injectLambdaContext(logger, { resetKeys: true }));
}
