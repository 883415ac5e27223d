import * as z from 'zod';
import { nameText, storedAtMost, Timestamp, whenFieldsValid } from './common.ts';
import { guardedUrl } from './outbound-url.ts';
import { pageOf } from './pagination.ts';
import { documentedInt, MAX_ID_CHARS, MAX_STORED_CHARS } from './bounds.ts';

/** Upper bounds that keep an agent's knowledge base searchable in one pass. */
export const MAX_KNOWLEDGE_DOCUMENT_CHARS = 200_000;

export const AddKnowledgeDocumentRequest = z
  .object({
    title: nameText(z.string().min(1).max(255)),
    content: z.string().min(1).max(MAX_KNOWLEDGE_DOCUMENT_CHARS).openapi({
      description: 'Plain text; for PDF/DOCX files, get the text from `POST /agent-templates/extract-text` first.',
    }),
  })
  .openapi('AddKnowledgeDocumentRequest');

export const KnowledgeDocument = z
  .object({
    id: z.string().max(MAX_ID_CHARS),
    workflow_id: documentedInt(z.int()),
    title: z.string().max(255),
    characters: documentedInt(z.int()),
    chunks: documentedInt(z.int()),
    created_at: Timestamp,
  })
  .openapi('KnowledgeDocument');

export const KnowledgeDocumentPage = pageOf(KnowledgeDocument, 'KnowledgeDocumentPage');

export const KnowledgeSearchQuery = z.object({
  q: z.string().min(1).max(500),
  limit: documentedInt(z.int().gte(1).lte(20)).default(5),
});

export const KnowledgeSearchResult = z
  .object({
    query: z.string().max(500),
    passages: z
      .array(
        z.object({
          document_id: z.string().max(MAX_ID_CHARS),
          title: z.string().max(255),
          text: z.string().max(MAX_STORED_CHARS),
          score: z.number(),
        }),
      )
      .max(20),
  })
  .openapi('KnowledgeSearchResult', { description: 'Passages ranked by BM25 over word tokens (see README).' });

export const KnowledgeDocumentParams = z.object({
  agent_id: z
    .string()
    .regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/)
    .openapi({ maxLength: 26 }),
  document_id: z
    .string()
    .regex(/^doc_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 20 }),
});

const ParameterProperty = z.object({
  type: z.enum(['string', 'number', 'integer', 'boolean']),
  description: z.string().max(500).default(''),
  enum: z
    .array(z.union([z.string().openapi({ maxLength: 32_000 }), z.number()]))
    .openapi({ maxItems: 32_000 })
    .optional(),
});

export const CreateToolRequest = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .openapi({ maxLength: 64 })
      .openapi({ description: 'snake_case, as the model calls it.' }),
    description: z.string().min(1).max(1000),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    url: guardedUrl(
      'The endpoint; GET/DELETE send the arguments as query parameters, the others as a JSON body.',
      '5 s and 256 KiB per call',
    ),
    headers: storedAtMost(z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/), z.string().max(1024)), 16_000)
      .default({})
      .openapi({
        description:
          'Sent with every call (e.g. credentials): stored encrypted (KMS) and never returned; a tool shows their names with hidden values.',
      }),
    parameters: storedAtMost(
      z.object({
        type: z.literal('object').default('object'),
        properties: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), ParameterProperty).default({}),
        required: z
          .array(z.string().openapi({ maxLength: 32_000 }))
          .openapi({ maxItems: 32_000 })
          .default([]),
      }),
      32_000,
    )
      .default({ type: 'object', properties: {}, required: [] })
      .openapi({
        description:
          'JSON Schema of the arguments: an object of string/number/integer/boolean properties (at most 32 kB stored).',
      }),
  })
  .refine((tool) => tool.parameters.required.every((name) => Object.hasOwn(tool.parameters.properties, name)), {
    message: 'every name in parameters.required must be a property',
    path: ['parameters', 'required'],
    when: whenFieldsValid,
  })
  .openapi('CreateToolRequest');

export const Tool = z
  .object({
    id: z.string().max(MAX_ID_CHARS),
    workflow_id: documentedInt(z.int()),
    name: z.string().max(64),
    description: z.string().max(1000),
    method: z.string().max(16),
    url: z.string().max(2048),
    headers: z
      .record(z.string(), z.string().max(1024))
      .openapi({ description: 'Header names; values are hidden (`********`).' }),
    parameters: z.record(z.string(), z.unknown()),
    created_at: Timestamp,
  })
  .openapi('Tool', { description: 'A typed HTTP tool the agent may call during a conversation.' });

export const ToolList = pageOf(Tool, 'ToolList');

export const ToolParams = z.object({
  agent_id: z
    .string()
    .regex(/^(agent_[A-Za-z0-9]{20}|[0-9]{1,15})$/)
    .openapi({ maxLength: 26 }),
  tool_id: z
    .string()
    .regex(/^tool_[A-Za-z0-9]{16}$/)
    .openapi({ maxLength: 21 }),
});
