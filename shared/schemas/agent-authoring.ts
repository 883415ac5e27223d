import * as z from 'zod';
import { MAX_BODY_BYTES } from '../api/gateway.ts';
import { nameText, storedAtMost, Timestamp } from './common.ts';
import { guardedUrl } from './outbound-url.ts';
import { pageOf } from './pagination.ts';
import {
  documentedInt,
  MAX_ANSWER_CHARS,
  MAX_ID_CHARS,
  MAX_NAME_CHARS,
  MAX_STORED_CHARS,
  MAX_STORED_ITEMS,
} from './bounds.ts';

export const AgentTemplate = z
  .object({
    id: z.string().max(MAX_ID_CHARS),
    name: z.string().max(MAX_NAME_CHARS),
    industry: z.string().max(MAX_NAME_CHARS),
    description: z.string().max(MAX_STORED_CHARS),
    languages: z.array(z.string().max(MAX_ID_CHARS)).max(MAX_STORED_ITEMS),
    variables: z
      .array(
        z.object({
          name: z.string().max(MAX_ID_CHARS),
          description: z.string().max(MAX_STORED_CHARS),
          required: z.boolean(),
        }),
      )
      .max(MAX_STORED_ITEMS),
    flow: z.boolean().openapi({
      description:
        'The template is a conversation flow (docs/flows.md): the agent made from it gets its graph of steps; `generate_with_ai` does not apply.',
    }),
  })
  .openapi('AgentTemplate');

export const TemplateList = pageOf(AgentTemplate, 'AgentTemplateList');

export const FromTemplateRequest = z
  .object({
    template_id: z.string().min(1).max(100),
    variables: storedAtMost(z.record(z.string(), z.string().openapi({ maxLength: 32_000 })), 32_000).default({}),
    language: z.string().min(2).max(10),
    agent_name: nameText(z.string().min(1).max(255)),
    generate_with_ai: z
      .boolean()
      .default(false)
      .openapi({ description: "The language model writes the questions from the template's brief." }),
  })
  .openapi('FromTemplateRequest');

export const TranslatePromptRequest = z
  .object({
    text: z.string().min(1).max(20_000),
    target_language: z.string().min(2).max(50),
    context: z.string().max(2000).default(''),
  })
  .openapi('TranslatePromptRequest');

export const TranslatePromptResponse = z
  .object({
    translated_text: z.string().max(MAX_ANSWER_CHARS),
    target_language: z.string().max(50),
    model: z
      .enum(['organization', 'platform'])
      .openapi({ description: "Whose model translated: the organization's own key, or the platform model." }),
  })
  .openapi('TranslatePromptResponse');

export const ModelKeyRequest = z
  .object({
    api_key: z.string().min(8).max(500),
    api_url: guardedUrl('An OpenAI-compatible API base URL.', '25 s and 1 MiB per model request', 500).default(
      'https://api.openai.com/v1',
    ),
    model: z.string().min(1).max(100).default('gpt-4o-mini'),
  })
  .openapi('ModelKeyRequest');

export const ModelKeyStatus = z
  .object({
    configured: z.boolean(),
    api_url: z.string().max(500).nullable(),
    model: z.string().max(100).nullable(),
    key_last4: z.string().max(4).nullable(),
    updated_at: Timestamp.nullable(),
  })
  .openapi('ModelKeyStatus', { description: 'The key itself is stored encrypted and never returned.' });

export const AnalyzeScriptRequest = z
  .object({
    script_text: z.string().min(1).max(50_000),
    url: guardedUrl('The company website; facts are read from it.', '10 s and 2 MiB').optional(),
    company_name: nameText(z.string().max(255)).default(''),
    language: z.string().min(2).max(10),
  })
  .openapi('AnalyzeScriptRequest');

const Sourced = z.object({ value: z.string().max(MAX_ANSWER_CHARS), source: z.enum(['script', 'website']) });

export const ScriptAnalysis = z
  .object({
    company_name: nameText(z.string().max(MAX_ANSWER_CHARS)),
    language: z.string().min(2).max(16).openapi({
      description:
        "The request's `language` (the language the agent speaks); it becomes the agent's `workflow_configurations.language`.",
    }),
    script_language: z.string().max(35).nullable().default(null).openapi({
      description:
        'BCP 47 code of the language the model found the script written in (null when it could not tell); informative, not used by `from-script`.',
    }),
    call_flow: z.object({
      greeting: Sourced.nullable(),
      steps: z.array(Sourced).max(MAX_ANSWER_CHARS),
      objections: z
        .array(
          z.object({
            objection: z.string().max(MAX_ANSWER_CHARS),
            answer: z.string().max(MAX_ANSWER_CHARS),
            source: z.enum(['script', 'website']),
          }),
        )
        .max(MAX_ANSWER_CHARS),
      mandatory_phrases: z.array(Sourced).max(MAX_ANSWER_CHARS),
      data_to_collect: z.array(Sourced).max(MAX_ANSWER_CHARS),
      branches: z
        .array(
          z.object({
            question: z.string().max(MAX_ANSWER_CHARS).openapi({
              description: 'One of `steps`, verbatim: the question whose answer chooses the branch.',
            }),
            answer: z
              .string()
              .min(1)
              .max(MAX_ANSWER_CHARS)
              .openapi({ description: 'The answer that takes this branch ("yes", "a loan").' }),
            steps: z.array(z.string().max(MAX_ANSWER_CHARS)).max(MAX_ANSWER_CHARS).openapi({
              description: 'What the script asks next on this branch, in order.',
            }),
            closing: z.string().max(MAX_ANSWER_CHARS).nullable().openapi({
              description:
                'The words this branch ends the call with; null when it goes on with the steps after the question.',
            }),
            source: z.enum(['script', 'website']),
          }),
        )
        .max(MAX_ANSWER_CHARS)
        .default([])
        .openapi({
          description:
            'Where the script goes one way or another on an answer. Not empty: `POST /agents/from-script` makes a conversation flow (docs/flows.md).',
        }),
    }),
    facts: z.object({
      offer: Sourced.nullable(),
      prices: z.array(Sourced).max(MAX_ANSWER_CHARS),
      hours: Sourced.nullable(),
      address: Sourced.nullable(),
      faq: z.array(Sourced).max(MAX_ANSWER_CHARS).openapi({
        description:
          "Questions customers ask, each with the answer the texts give; `POST /agents/from-script` puts them in the agent's knowledge base.",
      }),
    }),
    conflicts: z
      .array(
        z.object({
          field: z.string().max(MAX_ANSWER_CHARS),
          script_value: z.string().max(MAX_ANSWER_CHARS),
          website_value: z.string().max(MAX_ANSWER_CHARS),
        }),
      )
      .max(MAX_ANSWER_CHARS),
  })
  .openapi('ScriptAnalysis', {
    description:
      'Every value carries its `source`; where script and website differ, the script wins and `conflicts` lists it.',
  });

export const FromScriptRequest = z
  .object({
    agent_name: nameText(z.string().min(1).max(255)),
    analysis: storedAtMost(ScriptAnalysis, 200_000),
    generate_with_ai: z.boolean().default(false).openapi({
      description:
        "The language model writes the agent's questions from the script's steps and the data it must collect; otherwise the steps are the script's own.",
    }),
  })
  .openapi('FromScriptRequest');

export const ExtractTextQuery = z.object({ purpose: z.enum(['knowledge', 'script']).default('knowledge') });

export const ExtractTextUpload = z
  .object({
    file: z
      .string()
      .openapi({ format: 'binary', maxLength: MAX_BODY_BYTES.binary, description: 'PDF, DOCX, TXT or MD.' }),
  })
  .openapi('ExtractTextUpload');

export const ExtractedText = z
  .object({
    text: z.string().max(MAX_ANSWER_CHARS),
    characters: documentedInt(z.int()),
    purpose: z.enum(['knowledge', 'script']),
    file_name: z.string().max(MAX_ANSWER_CHARS),
    content_type: z.string().max(255),
  })
  .openapi('ExtractedText');
