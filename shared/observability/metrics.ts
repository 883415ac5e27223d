import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Custom CloudWatch metrics (Powertools Metrics, Embedded Metric Format on stdout, namespace from
 * POWERTOOLS_METRICS_NAMESPACE). Each count is published at once (a single metric), so callers
 * need no middleware: one `countMetric(...)` line where the thing happens. The CDK stack's alarms
 * and dashboard read the same names (infra/constructs/monitoring.ts). Disabled locally
 * (POWERTOOLS_METRICS_DISABLED).
 */
export const METRICS = {
  callsPlaced: 'CallsPlaced',
  callsAnswered: 'CallsAnswered',
  callsCompleted: 'CallsCompleted',
  callsUnanswered: 'CallsUnanswered',
  callsFailed: 'CallsFailed',
  /** 429 of call placement: every channel of the organization busy. */
  channelCapacityRejections: 'ChannelCapacityRejections',
  webhookDeliveries: 'WebhookDeliveries',
  webhookDeliveryFailures: 'WebhookDeliveryFailures',
  webhookEndpointsDisabled: 'WebhookEndpointsDisabled',
  campaignContactsFinished: 'CampaignContactsFinished',
  campaignsCompleted: 'CampaignsCompleted',
  /** Runs found in progress long after the longest call and ended by the sweeper. */
  stuckRunsEnded: 'StuckRunsEnded',
} as const;

export type MetricName = (typeof METRICS)[keyof typeof METRICS];

/** One dimension only (the service), constant across functions, so alarms address each metric once. */
export const METRICS_SERVICE = 'voice-agent-platform';

let metrics: Metrics | undefined;

/** The metrics of a call that ended (counted once: where its completion took effect). */
export function countCallOutcome(outcome: string, answered: boolean): void {
  if (answered) countMetric(METRICS.callsAnswered);
  countMetric(
    outcome === 'completed'
      ? METRICS.callsCompleted
      : outcome === 'failed'
        ? METRICS.callsFailed
        : METRICS.callsUnanswered,
  );
}

/** Counts `value` occurrences of `name`; never throws (a metric must not fail the work it counts). */
export function countMetric(name: MetricName, value = 1): void {
  try {
    // Added and published at once on one instance: `singleMetric()` builds a new Metrics (its
    // configuration read from the environment again) for every count, on every call's path.
    metrics ??= new Metrics({ serviceName: METRICS_SERVICE });
    metrics.addMetric(name, MetricUnit.Count, value);
    metrics.publishStoredMetrics();
  } catch {
    // Metrics are best effort.
  }
}
