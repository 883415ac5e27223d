import type { APIGatewayProxyEvent } from 'aws-lambda';
import { API_PREFIX } from '../api/route.ts';

/**
 * The API's base URL (ending in /api/v1) as the client reached it: the stage (`/prod`) or a custom
 * domain's base path are part of `requestContext.path`, which API Gateway reports as requested.
 */
export function requestBaseUrl(event: APIGatewayProxyEvent): string {
  const headers = event.headers ?? {};
  const host = headers.Host ?? headers.host ?? event.requestContext.domainName;
  const local = /^(127\.0\.0\.1|localhost)(:|$)/.test(host ?? '');
  const protocol = headers['X-Forwarded-Proto'] ?? headers['x-forwarded-proto'] ?? (local ? 'http' : 'https');
  const requestPath = event.requestContext.path ?? event.path;
  const prefixEnd = requestPath.indexOf(API_PREFIX);
  return `${protocol}://${host}${requestPath.slice(0, prefixEnd)}${API_PREFIX}`;
}
