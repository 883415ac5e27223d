import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { agentRoutes } from '../../shared/api/routes/agents.ts';
import { parseRequest } from '../../shared/http/request.ts';
import { RequestValidationError } from '../../shared/http/validation-error.ts';
import { MAX_KNOWLEDGE_TEXT_CHARS } from '../../shared/schemas/bounds.ts';
import { MAX_KNOWLEDGE_TEXT_CHARS as EXTRACTED_KNOWLEDGE_CHARS } from '../../shared/services/text-extraction.ts';

/** `workflow_definition.knowledge`, the spec's knowledge box: a string inlined into the prompt, bounded. */
const create = (knowledge: unknown) =>
  ({
    body: JSON.stringify({ name: 'Boxed', workflow_definition: { prompt: 'Help.', knowledge } }),
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/api/v1/agents',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/api/v1/agents',
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  }) as APIGatewayProxyEvent;

const itemsOf = (knowledge: unknown) => {
  try {
    parseRequest(agentRoutes.createAgent, create(knowledge));
    return [];
  } catch (error) {
    if (error instanceof RequestValidationError) return error.items;
    throw error;
  }
};

describe('the knowledge box (workflow_definition.knowledge)', () => {
  it('holds what extract-text?purpose=knowledge gives', () => {
    expect(EXTRACTED_KNOWLEDGE_CHARS).toBe(MAX_KNOWLEDGE_TEXT_CHARS);
  });

  it.each([
    ['at the cap', 'k'.repeat(MAX_KNOWLEDGE_TEXT_CHARS), []],
    [
      'over the cap',
      'k'.repeat(MAX_KNOWLEDGE_TEXT_CHARS + 1),
      [expect.objectContaining({ type: 'string_too_long', loc: ['body', 'workflow_definition', 'knowledge'] })],
    ],
    ['not a string', ['a'], [expect.objectContaining({ loc: ['body', 'workflow_definition', 'knowledge'] })]],
  ])('%s', (_name, knowledge, expected) => {
    expect(itemsOf(knowledge)).toEqual(expected);
  });
});
