import type { z } from 'zod';

/** Every path in the route table is relative to this prefix; the base URL ends with it. */
export const API_PREFIX = '/api/v1';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response header as the OpenAPI document describes it (a plain JSON Schema: headers are not parsed). */
export interface ResponseHeader {
  description: string;
  schema:
    | { type: 'integer'; format: 'int32' | 'int64'; minimum: number; maximum: number }
    | { type: 'string'; maxLength: number; pattern?: string; enum?: string[] };
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
  headers?: Record<string, ResponseHeader>;
}

export interface RouteRequest {
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** FastAPI makes a model body required unless it has a default. */
  bodyRequired?: boolean;
  /** A multipart/form-data body: documented here, parsed by the operation itself (uploads). */
  multipart?: z.ZodType;
}

/**
 * One row of the route table: the single description of an endpoint that drives request
 * validation in the Lambda, the API Gateway resources in the CDK stack, the local gateway and the
 * OpenAPI document.
 */
export interface Route<Req extends RouteRequest = RouteRequest> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style template relative to API_PREFIX, e.g. `/agents/{agent_id}`. */
  path: string;
  /** The Lambda function (endpoint group) that serves the route. */
  group: string;
  /** Public routes skip the API-key authorizer. */
  public?: boolean;
  /** Machine-to-machine endpoints (provider callbacks) left out of the public OpenAPI document. */
  internal?: boolean;
  summary: string;
  /** Every operation has one (the reference page shows it, with a request example). */
  description: string;
  tags: string[];
  request: Req;
  responses: Record<number, ResponseSpec>;
}

export function defineRoute<const Req extends RouteRequest>(route: Route<Req>): Route<Req> {
  return route;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

/** The validated input an operation receives. */
export interface OperationInput<Req extends RouteRequest> {
  params: Infer<Req['params']>;
  query: Infer<Req['query']>;
  headers: Infer<Req['headers']>;
  body: Infer<Req['body']>;
}

/** `/agents/{agent_id}` → `/api/v1/agents/{agent_id}`: the API Gateway `resource` of the route. */
export const resourcePath = (route: Pick<Route, 'path'>): string => `${API_PREFIX}${route.path}`;
