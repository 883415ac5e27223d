import { Duration } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { EVENT_RULES } from '../../shared/events/event-rules.ts';
import { EVENT_BUS_NAME } from '../../shared/events/names.ts';
import type { DeadLetters } from './dead-letters.ts';
import type { Functions } from './functions.ts';

/** The application's EventBridge bus and, once the functions exist, one rule per EVENT_RULES entry (in the functions' stack). */
export class Events extends Construct {
  readonly bus: EventBus;
  readonly rules = new Map<string, Rule>();

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: EVENT_BUS_NAME });
  }

  /**
   * Separate from the constructor: functions need the bus first (EVENT_BUS_NAME, grants). The rules
   * and their invoke permissions live beside the functions they target, in the functions' nested
   * stack: the root stack keeps its room under CloudFormation's 500 resources for the API's methods.
   */
  addRules(functions: Functions, deadLetters: DeadLetters): void {
    const scope = new Construct(functions, 'EventRules');
    for (const spec of EVENT_RULES) {
      const rule = new Rule(scope, spec.name, {
        eventBus: this.bus,
        description: `${spec.source} ${spec.detailType} → ${spec.target}`,
        eventPattern: {
          source: [spec.source],
          detailType: [spec.detailType],
          ...(spec.detail ? { detail: spec.detail } : {}),
        },
        // Retried for a day, then kept in the dead-letter queue (alarmed) rather than dropped.
        targets: [
          new LambdaFunction(functions.get(spec.target), {
            deadLetterQueue: deadLetters.eventDelivery,
            retryAttempts: 185,
            maxEventAge: Duration.hours(24),
          }),
        ],
      });
      this.rules.set(spec.name, rule);
    }
  }
}
