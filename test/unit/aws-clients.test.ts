import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDocumentClient, eventBridge, stepFunctions } from '../../shared/aws/clients.ts';

const middlewareNames = (client: { middlewareStack: { identify: () => string[] } }) =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe('AWS SDK clients', () => {
  it('send no request through the SDK logger middleware, which only fed a logger that drops everything', () => {
    expect(middlewareNames(new DynamoDBClient({}))).toContain('loggerMiddleware');
    for (const client of [dynamoDocumentClient(), stepFunctions(), eventBridge()])
      expect(middlewareNames(client)).not.toContain('loggerMiddleware');
  });
});
