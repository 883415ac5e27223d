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
  /** A content filter on the event's `detail` (EventBridge's pattern syntax; the subset matchesDetail reads). */
  detail?: DetailPattern;
}

/** A leaf of a pattern: the values it accepts, or whether the field must be present at all. */
type LeafMatcher = string | number | boolean | null | { exists: boolean };
export type DetailPattern = { [field: string]: DetailPattern | LeafMatcher[] };

/**
 * Whether `detail` matches `pattern` as EventBridge matches an event pattern's `detail`: every
 * field of the pattern must match; a leaf matches when the value equals one of its values, or by
 * `{exists}` (a field inside a null or missing object does not exist). Used by the local event bus.
 */
export function matchesDetail(pattern: DetailPattern | undefined, detail: unknown): boolean {
  if (!pattern) return true;
  return Object.entries(pattern).every(([field, matcher]) => {
    const value =
      detail !== null && typeof detail === 'object' ? (detail as Record<string, unknown>)[field] : undefined;
    if (!Array.isArray(matcher)) return matchesDetail(matcher, value);
    return matcher.some((accepted) =>
      accepted !== null && typeof accepted === 'object'
        ? accepted.exists === (value !== undefined)
        : accepted === value,
    );
  });
}

export const EVENT_RULES: EventRule[] = [
  { name: 'call-completed-to-webhooks', source: EVENT_SOURCE, detailType: CALL_COMPLETED, target: 'webhookFanout' },
  { name: 'call-completed-to-campaigns', source: EVENT_SOURCE, detailType: CALL_COMPLETED, target: 'campaignOutcomes' },
  {
    name: 'call-completed-to-analysis',
    source: EVENT_SOURCE,
    detailType: CALL_COMPLETED,
    target: 'callAnalysis',
    // Only a run with an analysis (whose status is always set): the calls of agents without an
    // analysis plan, and those with no transcript, invoke no function for it.
    detail: { data: { analysis: { status: [{ exists: true }] } } },
  },
  // A run's webhooks wait for its analysis (the fan-out skips a `call.completed` whose analysis is pending).
  { name: 'call-analyzed-to-webhooks', source: EVENT_SOURCE, detailType: CALL_ANALYZED, target: 'webhookFanout' },
  // The other webhook events (`call.failed` is derived from `call.completed` by the fan-out).
  ...(
    [
      'call.started',
      'campaign.completed',
      'campaign.paused',
      'test_run.completed',
      'sms.received',
      'number.approved',
      'number.rejected',
      'memory.created',
      'task.due',
    ] as const
  ).map((detailType) => ({
    name: `${detailType.replace('.', '-')}-to-webhooks`,
    source: EVENT_SOURCE,
    detailType,
    target: 'webhookFanout',
  })),
];
