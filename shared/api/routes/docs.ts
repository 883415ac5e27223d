import * as z from 'zod';
import { ErrorResponse } from '../../schemas/common.ts';
import { defineRoute } from '../route.ts';

export const docsRoutes = {
  openapiDocument: defineRoute({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/public-openapi.json',
    group: 'docs',
    public: true,
    summary: 'OpenAPI 3.1 description of this API',
    description:
      'This document: OpenAPI 3.1, generated from the same schemas that validate requests. No API key needed.',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'OpenAPI document', contentType: 'application/json' } },
  }),
  docsPage: defineRoute({
    operationId: 'getDocsPage',
    method: 'GET',
    path: '/public-docs',
    group: 'docs',
    public: true,
    summary: 'Interactive API reference',
    description:
      'The interactive reference (Swagger UI) of this document, served by the API itself (no CDN). `/public-docs/` redirects here. No API key needed.',
    tags: ['Documentation'],
    request: {},
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  }),
  docsAsset: defineRoute({
    operationId: 'getDocsAsset',
    method: 'GET',
    path: '/public-docs/{asset}',
    group: 'docs',
    public: true,
    summary: 'Static asset of the reference page',
    description: 'Scripts and styles of the reference page; any other name is 404.',
    tags: ['Documentation'],
    request: { params: z.object({ asset: z.string().max(100) }) },
    responses: { 200: { description: 'Asset' }, 404: { description: 'No such asset', schema: ErrorResponse } },
  }),
};

/** The route table: every endpoint of the API. */
