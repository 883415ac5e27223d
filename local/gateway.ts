import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { CONSOLE_HEADERS, CONSOLE_PATH, type SiteFile } from '../infra/console-site.ts';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroupName } from '../shared/api/function-groups.ts';
import {
  API_KEY_HEADER,
  BINARY_MEDIA_TYPES,
  CORS_HEADERS,
  GATEWAY_ERRORS,
  MAX_BODY_BYTES,
  MAX_LAMBDA_PAYLOAD_BYTES,
  MAX_REQUEST_BYTES,
  ORGANIZATION_RATE_LIMIT,
} from '../shared/api/gateway.ts';
import { createRouteMatcher } from '../shared/api/route-matcher.ts';
import { ROUTES } from '../shared/api/routes.ts';
import { AuthorizerCache, type AuthorizerOutcome } from './authorizer-cache.ts';
import { invokeLocal } from './lambda-runtime.ts';
import { startGatewayManagement } from './usage-plan.ts';
import { RATE_LIMIT_POLICY, THROTTLED_HEADERS, UsagePlanThrottle } from '../shared/http/rate-limit.ts';

const STAGE = 'prod';
const API_ID = 'local';
const ACCOUNT_ID = '000000000000';

type GatewayError = (typeof GATEWAY_ERRORS)[keyof typeof GATEWAY_ERRORS];

class PayloadTooLarge extends Error {}

/**
 * The body, or PayloadTooLarge past API Gateway's 10 MB. The rest of an oversized body is read
 * and dropped, so the client gets its 413 rather than a reset connection mid-upload.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () =>
      size > MAX_REQUEST_BYTES ? reject(new PayloadTooLarge()) : resolve(Buffer.concat(chunks)),
    );
    request.on('error', reject);
  });
}

/** Header names as the client sent them (API Gateway keeps their case), last value wins in `headers`. */
function headersOf(request: IncomingMessage) {
  // No prototype: a header or query name such as `__proto__` or `constructor` is just a name.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  return { headers, multiValueHeaders };
}

function queryOf(url: URL) {
  if (!url.search) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const queryStringParameters: Record<string, string> = Object.create(null);
  const multiValueQueryStringParameters: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    queryStringParameters[name] = value;
    (multiValueQueryStringParameters[name] ??= []).push(value);
  }
  return { queryStringParameters, multiValueQueryStringParameters };
}

function isBinary(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return Boolean(mediaType && BINARY_MEDIA_TYPES.includes(mediaType));
}

function sendError(response: ServerResponse, error: GatewayError, extraHeaders: Record<string, string> = {}): void {
  response.writeHead(error.status, {
    ...CORS_HEADERS,
    'RateLimit-Policy': RATE_LIMIT_POLICY,
    'Content-Type': 'application/json',
    ...extraHeaders,
  });
  response.end(JSON.stringify({ detail: error.detail }));
}

function sendResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

function isProxyResult(value: unknown): value is APIGatewayProxyResult {
  const result = value as APIGatewayProxyResult | null;
  return (
    Boolean(result) &&
    Number.isInteger(result!.statusCode) &&
    (result!.body === undefined || typeof result!.body === 'string')
  );
}

export interface LocalGateway {
  /** e.g. http://127.0.0.1:3000/api/v1 is `${origin}/api/v1`. */
  origin: string;
  /** The API Gateway management API of this gateway (AWS_ENDPOINT_URL_API_GATEWAY). */
  managementEndpoint: string;
  server: Server;
  close: () => Promise<void>;
}

export interface LocalGatewayOptions {
  port: number;
  host?: string;
  authorizerCacheTtlSeconds: number;
  /** The organizations' usage plan (default ORGANIZATION_RATE_LIMIT, as on AWS). */
  usagePlan?: { rateLimit: number; burstLimit: number };
  /** The console's files, served under CONSOLE_PATH (console-site.ts). */
  console?: Map<string, SiteFile>;
}

/**
 * A local stand-in for the API Gateway REST API the CDK stack builds from the same route table:
 * resolves the resource, runs the API-key authorizer (with its result cache), turns the request
 * into a REST (v1) proxy event and invokes the endpoint group's Lambda handler in-process.
 */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  const matchRoute = createRouteMatcher(ROUTES);
  const authorizerCache = new AuthorizerCache(options.authorizerCacheTtlSeconds);
  const throttle = new UsagePlanThrottle(options.usagePlan ?? ORGANIZATION_RATE_LIMIT);
  const management = await startGatewayManagement({ flushAuthorizerCache: () => authorizerCache.clear() });
  const region = process.env.AWS_REGION ?? 'us-east-1';

  async function authorize(event: APIGatewayRequestAuthorizerEvent, key: string): Promise<AuthorizerOutcome> {
    return authorizerCache.resolve(key, async () => {
      try {
        const result = (await invokeLocal('authorizer', AUTHORIZER, event)) as {
          policyDocument: { Statement: { Effect: string }[] };
          principalId: string;
          context?: Record<string, unknown>;
          usageIdentifierKey?: string;
        };
        const allowed = result.policyDocument.Statement.every((statement) => statement.Effect === 'Allow');
        return allowed
          ? {
              kind: 'allow',
              principalId: result.principalId,
              context: result.context ?? {},
              usageIdentifierKey: result.usageIdentifierKey,
            }
          : { kind: 'deny' };
      } catch (error) {
        // API Gateway's contract: the authorizer rejects a caller by failing with exactly 'Unauthorized'.
        if (error instanceof Error && error.message === 'Unauthorized') return { kind: 'unauthorized' };
        throw error;
      }
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    if (options.console && url.pathname.startsWith(CONSOLE_PATH) && (method === 'GET' || method === 'HEAD')) {
      const file = options.console.get(url.pathname.slice(CONSOLE_PATH.length) || 'index.html');
      if (!file) return sendError(response, GATEWAY_ERRORS.notFound);
      response.writeHead(200, { 'Content-Type': file.contentType, ...CONSOLE_HEADERS });
      response.end(method === 'HEAD' ? undefined : file.body);
      return;
    }
    const { headers, multiValueHeaders } = headersOf(request);
    const body = await readBody(request);
    const match = matchRoute(method, url.pathname);
    const requestId = randomUUID();

    const group: FunctionGroupName = match.kind === 'route' ? (match.route.group as FunctionGroupName) : 'fallback';
    const resource = match.kind === 'not-found' ? '/{proxy+}' : match.resource;
    const pathParameters =
      match.kind === 'route'
        ? match.pathParameters
        : match.kind === 'not-found'
          ? { proxy: url.pathname.slice(1) }
          : null;
    const requestContext = {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      stage: STAGE,
      requestId,
      extendedRequestId: requestId,
      httpMethod: method,
      // As behind a custom domain: the local base URL has no stage segment.
      path: url.pathname,
      resourcePath: resource,
      resourceId: resource,
      protocol: `HTTP/${request.httpVersion}`,
      requestTimeEpoch: Date.now(),
      domainName: request.headers.host ?? 'localhost',
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
      },
      authorizer: null as Record<string, unknown> | null,
    };

    if (match.kind === 'route' && !match.route.public) {
      const key = Object.entries(headers).find(([name]) => name.toLowerCase() === API_KEY_HEADER.toLowerCase())?.[1];
      // API Gateway answers 401 itself, without calling the authorizer, when the identity source is missing.
      if (!key) return sendError(response, GATEWAY_ERRORS.unauthorized);
      const outcome = await authorize(
        {
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:${region}:${ACCOUNT_ID}:${API_ID}/${STAGE}/${method}${url.pathname}`,
          resource,
          path: url.pathname,
          httpMethod: method,
          headers,
          multiValueHeaders,
          pathParameters: match.pathParameters,
          ...queryOf(url),
          stageVariables: null,
          requestContext,
        } as unknown as APIGatewayRequestAuthorizerEvent,
        key,
      );
      if (outcome.kind === 'unauthorized') return sendError(response, GATEWAY_ERRORS.unauthorized);
      if (outcome.kind === 'deny') return sendError(response, GATEWAY_ERRORS.accessDenied);
      // API key source AUTHORIZER: the usage plan must know the key the authorizer names; it throttles per key.
      if (!outcome.usageIdentifierKey) return sendError(response, GATEWAY_ERRORS.invalidApiKey);
      if (!throttle.take(outcome.usageIdentifierKey)) {
        return sendError(response, GATEWAY_ERRORS.throttled, THROTTLED_HEADERS);
      }
      requestContext.authorizer = { principalId: outcome.principalId, ...outcome.context };
    }

    const binary = isBinary(request.headers['content-type']);
    const event = {
      resource,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders,
      ...queryOf(url),
      pathParameters,
      stageVariables: null,
      requestContext,
      body: body.length ? (binary ? body.toString('base64') : body.toString('utf8')) : null,
      isBase64Encoded: binary && body.length > 0,
    } as unknown as APIGatewayProxyEvent;

    // The stack's web ACL refuses a body that cannot fit a Lambda event by its size, and Lambda any
    // event over 6 MB all the same (a text body whose escapes grow it past the limit).
    if (body.length > (binary ? MAX_BODY_BYTES.binary : MAX_BODY_BYTES.text)) throw new PayloadTooLarge();
    if (Buffer.byteLength(JSON.stringify(event)) > MAX_LAMBDA_PAYLOAD_BYTES) throw new PayloadTooLarge();
    const result = await invokeLocal(group, FUNCTION_GROUPS[group], event);
    if (!isProxyResult(result)) return sendError(response, GATEWAY_ERRORS.badGateway);
    sendResult(response, result);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof PayloadTooLarge)
        return sendError(response, GATEWAY_ERRORS.requestTooLarge, { Connection: 'close' });
      // A Lambda that throws is a 502 from API Gateway; print it, since no CloudWatch is watching.
      console.error('Local gateway: Lambda invocation failed', error);
      if (!response.headersSent) sendError(response, GATEWAY_ERRORS.badGateway);
      else response.end();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${options.host ?? '127.0.0.1'}:${port}`,
    managementEndpoint: management.endpoint,
    server,
    close: async () => {
      await management.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
