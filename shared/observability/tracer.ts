// First: it decides how the X-Ray SDK starts, which it does as the Tracer is imported.
import './xray-context.ts';
import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray tracing (Powertools Tracer): the functions run with active tracing, and every AWS SDK
 * client made in shared/aws/clients.ts is captured, so each DynamoDB, S3, Step Functions and
 * EventBridge call is a subsegment. Off outside Lambda (the local stack and tests), where the
 * X-Ray SDK also keeps no per-promise context (xray-context.ts).
 */
export const tracer = new Tracer();

export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
