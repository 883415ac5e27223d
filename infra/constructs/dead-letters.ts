import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/**
 * Dead-letter queues: nothing invoked asynchronously is lost silently. What lands here failed
 * every retry; an alarm fires on any message (monitoring.ts), and the message holds the event to
 * replay once the cause is fixed.
 */
export class DeadLetters extends Construct {
  /** Failed asynchronous Lambda invocations (EventBridge and Scheduler targets), with the error. */
  readonly asyncInvocations: Queue;
  /** Events EventBridge rules and schedules could not deliver to their function at all. */
  readonly eventDelivery: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const queue = (name: string, description: string) => {
      const created = new Queue(this, name, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      acknowledge(
        created,
        `${description}: a dead-letter queue itself, the end of the line (an alarm watches its depth).`,
        'AwsSolutions-SQS3',
        'Serverless-SQSRedrivePolicy',
      );
      return created;
    };
    this.asyncInvocations = queue('AsyncInvocationFailures', 'Failed asynchronous Lambda invocations');
    this.eventDelivery = queue('EventDeliveryFailures', 'Undeliverable EventBridge and Scheduler events');
  }

  get all(): Queue[] {
    return [this.asyncInvocations, this.eventDelivery];
  }
}
