import { CALL_ANALYZED, CALL_COMPLETED, EVENT_SOURCE } from './names.ts';

/**
 * EventBridge rules of the application bus: which events reach which function. The CDK stack
 * creates one Rule per entry; the local event bus applies the same matching.
 */
export interface EventRule {
  name: string;
  source: string;
  detailType: string;
  /** Function group invoked with the EventBridge event. */
  target: string;
}

export const EVENT_RULES: EventRule[] = [
  { name: 'call-completed-to-webhooks', source: EVENT_SOURCE, detailType: CALL_COMPLETED, target: 'webhookFanout' },
  { name: 'call-completed-to-campaigns', source: EVENT_SOURCE, detailType: CALL_COMPLETED, target: 'campaignOutcomes' },
  { name: 'call-completed-to-analysis', source: EVENT_SOURCE, detailType: CALL_COMPLETED, target: 'callAnalysis' },
  // A run's webhooks wait for its analysis (the fan-out skips a `call.completed` whose analysis is pending).
  { name: 'call-analyzed-to-webhooks', source: EVENT_SOURCE, detailType: CALL_ANALYZED, target: 'webhookFanout' },
  // The other webhook events (`call.failed` is derived from `call.completed` by the fan-out).
  ...(['call.started', 'campaign.completed', 'campaign.paused'] as const).map((detailType) => ({
    name: `${detailType.replace('.', '-')}-to-webhooks`,
    source: EVENT_SOURCE,
    detailType,
    target: 'webhookFanout',
  })),
];
