import * as z from 'zod';
import { defineRoute } from '../route.ts';

export const docsRoutes = {
  openapiDocument: defineRoute({
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/public-openapi.json',
    group: 'docs',
    public: true,
    summary: 'OpenAPI 3.1 description of this API',
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
    tags: ['Documentation'],
    request: { params: z.object({ asset: z.string() }) },
    responses: { 200: { description: 'Asset' }, 404: { description: 'No such asset' } },
  }),
};

/** The route table: every endpoint of the API. */
