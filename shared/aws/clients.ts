import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { loadConfig } from '../config.ts';
import { traced } from '../observability/tracer.ts';

/**
 * SDK clients, created once per execution environment (outside the handler) so connections are
 * reused across invocations. Endpoints come from `AWS_ENDPOINT_URL_*` when set (local emulators,
 * LocalStack); on AWS they are the regional defaults.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: S3Client | undefined;
let sfnClient: SFNClient | undefined;
let eventBridgeClient: EventBridgeClient | undefined;

/**
 * Without the SDK's logger middleware: with no logger configured it still copied every request
 * and response through the commands' sensitive-data filters, for a logger that drops them (a few
 * percent of the CPU of a DynamoDB-heavy invocation).
 */
function withoutDiscardedLogging<T extends { middlewareStack: { remove: (name: string) => boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(traced(withoutDiscardedLogging(new DynamoDBClient({}))), {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return documentClient;
}

export function s3(): S3Client {
  s3Client ??= traced(withoutDiscardedLogging(new S3Client({ forcePathStyle: loadConfig().s3ForcePathStyle })));
  return s3Client;
}

export function stepFunctions(): SFNClient {
  sfnClient ??= traced(withoutDiscardedLogging(new SFNClient({})));
  return sfnClient;
}

export function eventBridge(): EventBridgeClient {
  eventBridgeClient ??= traced(withoutDiscardedLogging(new EventBridgeClient({})));
  return eventBridgeClient;
}
