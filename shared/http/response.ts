import type { APIGatewayProxyResult } from 'aws-lambda';
import { CORS_HEADERS } from '../api/gateway.ts';

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

/** What an operation returns; the router turns it into an API Gateway proxy result. */
export interface HttpResult {
  status: number;
  /** JSON-serialised unless `rawBody` is given. */
  body?: unknown;
  rawBody?: string;
  /** Base64-encoded binary body (API Gateway binary media). */
  isBase64Encoded?: boolean;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 200, body, headers });
export const created = (body: unknown, headers?: Record<string, string>): HttpResult => ({
  status: 201,
  body,
  headers,
});
export const noContent = (): HttpResult => ({ status: 204 });

export function toProxyResult(result: HttpResult): APIGatewayProxyResult {
  if (result.rawBody !== undefined) {
    return {
      statusCode: result.status,
      headers: { ...CORS_HEADERS, ...result.headers },
      body: result.rawBody,
      isBase64Encoded: result.isBase64Encoded ?? false,
    };
  }
  const hasBody = result.body !== undefined && result.status !== 204;
  return {
    statusCode: result.status,
    headers: hasBody ? { ...CORS_HEADERS, ...JSON_HEADERS, ...result.headers } : { ...CORS_HEADERS, ...result.headers },
    body: hasBody ? JSON.stringify(result.body) : '',
  };
}

export function errorResult(status: number, detail: unknown, headers?: Record<string, string>): HttpResult {
  return { status, body: { detail }, headers };
}
