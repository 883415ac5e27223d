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

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(traced(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return documentClient;
}

export function s3(): S3Client {
  s3Client ??= traced(new S3Client({ forcePathStyle: loadConfig().s3ForcePathStyle }));
  return s3Client;
}

export function stepFunctions(): SFNClient {
  sfnClient ??= traced(new SFNClient({}));
  return sfnClient;
}

export function eventBridge(): EventBridgeClient {
  eventBridgeClient ??= traced(new EventBridgeClient({}));
  return eventBridgeClient;
}
