import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/config/settings.ts';
import { METRICS, METRICS_SERVICE, type MetricName } from '../../shared/observability/metrics.ts';
import { acknowledge } from '../nag.ts';

export interface MonitoringProps {
  api: RestApi;
  accessLogs: ILogGroup;
  stateMachines: Map<string, StateMachine>;
  deadLetterQueues: Queue[];
}

const FIVE_MINUTES = Duration.minutes(5);
/** Requests over the organizations' rate limit, counted from the access logs (API Gateway has no metric for them). */
export const THROTTLED_REQUESTS_METRIC = 'ThrottledRequests';

/** A custom metric of shared/observability/metrics.ts, summed per period. */
export function customMetric(name: MetricName | typeof THROTTLED_REQUESTS_METRIC, label?: string): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: name === THROTTLED_REQUESTS_METRIC ? undefined : { service: METRICS_SERVICE },
    statistic: 'Sum',
    period: FIVE_MINUTES,
    label,
  });
}

/**
 * What an operator watches: alarms (to the `AlarmTopic` SNS topic: subscribe to it) on the API's
 * 5xx rate, throttling, dead-letter queue depth, failed executions, runs stuck in progress and
 * webhook endpoints disabled, and one dashboard with the platform's metrics.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'Voice agent platform alarms', enforceSSL: true });
    acknowledge(
      this.topic,
      'Alarm notifications carry no customer data, and CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key.',
      'AwsSolutions-SNS2',
    );

    new MetricFilter(this, 'ThrottledRequestsFilter', {
      logGroup: props.accessLogs,
      metricNamespace: METRICS_NAMESPACE,
      metricName: THROTTLED_REQUESTS_METRIC,
      filterPattern: FilterPattern.stringValue('$.responseType', '=', 'THROTTLED'),
      metricValue: '1',
      defaultValue: 0,
    });

    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };

    const serverErrorRate = props.api.metricServerError({
      statistic: 'Average',
      period: FIVE_MINUTES,
      label: '5xx rate',
    });
    alarm('Api5xxRate', serverErrorRate, 0.01, 'More than 1% of API requests answered 5xx over 5 minutes');
    alarm(
      'ApiThrottling',
      customMetric(THROTTLED_REQUESTS_METRIC),
      100,
      'More than 100 requests throttled by the per-organization rate limit in 5 minutes',
    );
    const lambdaThrottles = new Metric({
      namespace: 'AWS/Lambda',
      metricName: 'Throttles',
      statistic: 'Sum',
      period: FIVE_MINUTES,
      label: 'Lambda throttles',
    });
    alarm(
      'LambdaThrottles',
      lambdaThrottles,
      0,
      'Lambda invocations throttled (account or reserved concurrency exhausted)',
    );
    props.deadLetterQueues.forEach((queue, index) => {
      alarm(
        `DeadLetters${index + 1}`,
        queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
        0,
        `Messages in a dead-letter queue: an asynchronous invocation or event delivery failed every retry (${queue.node.id})`,
      );
    });
    for (const [name, machine] of props.stateMachines) {
      alarm(
        `Failed-${name}`,
        machine.metricFailed({ period: FIVE_MINUTES }),
        0,
        `Executions of ${name} failed (see the state machine's Fail states)`,
      );
    }
    alarm(
      'StuckRuns',
      customMetric(METRICS.stuckRunsEnded),
      0,
      'Runs stayed in progress past the longest call and were ended by the sweeper',
    );
    alarm(
      'WebhookEndpointsDisabled',
      customMetric(METRICS.webhookEndpointsDisabled),
      0,
      'Webhook endpoints were disabled (410 Gone)',
    );

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: 'voice-agent-platform' });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '# Voice agent platform\nAlarms notify the AlarmTopic SNS topic.',
        width: 24,
        height: 2,
      }),
      new GraphWidget({
        title: 'API requests and errors',
        left: [
          props.api.metricCount({ period: FIVE_MINUTES }),
          props.api.metricClientError({ period: FIVE_MINUTES }),
          props.api.metricServerError({ period: FIVE_MINUTES }),
        ],
        right: [props.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' })],
        width: 12,
      }),
      new GraphWidget({
        title: '429s: rate limit and channel capacity, Lambda throttles',
        left: [
          customMetric(THROTTLED_REQUESTS_METRIC, 'rate limited'),
          customMetric(METRICS.channelCapacityRejections, 'channels busy'),
          lambdaThrottles,
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Calls',
        left: [
          METRICS.callsPlaced,
          METRICS.callsAnswered,
          METRICS.callsCompleted,
          METRICS.callsUnanswered,
          METRICS.callsFailed,
        ].map((name) => customMetric(name)),
        width: 12,
      }),
      new GraphWidget({
        title: 'Webhooks and campaigns',
        left: [METRICS.webhookDeliveries, METRICS.webhookDeliveryFailures, METRICS.webhookEndpointsDisabled].map(
          (name) => customMetric(name),
        ),
        right: [METRICS.campaignContactsFinished, METRICS.campaignsCompleted].map((name) => customMetric(name)),
        width: 12,
      }),
      new GraphWidget({
        title: 'Executions failed',
        left: [...props.stateMachines.entries()].map(([name, machine]) =>
          machine.metricFailed({ period: FIVE_MINUTES, label: name }),
        ),
        width: 12,
      }),
      new SingleValueWidget({
        title: 'Dead letters, stuck runs',
        metrics: [
          ...props.deadLetterQueues.map((queue) =>
            queue.metricApproximateNumberOfMessagesVisible({ label: queue.node.id }),
          ),
          customMetric(METRICS.stuckRunsEnded, 'stuck runs ended'),
        ],
        width: 12,
      }),
    );
  }
}
