/**
 * Delivery schedule of the Standard Webhooks spec: the first attempt at once, then retries
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the previous failure, each with
 * up to ±10 % jitter so endpoints recovering from an outage are not hit all at once.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
const JITTER = 0.1;
/** A Retry-After longer than this is not honoured as given (the schedule's longest step). */
const MAX_RETRY_AFTER_SECONDS = 86400;

export type AttemptResult =
  { kind: 'response'; status: number; retryAfter?: string } | { kind: 'network_error' | 'timeout' };

export type DeliveryDecision =
  | { action: 'delivered' }
  | { action: 'retry'; delaySeconds: number }
  | { action: 'failed' }
  /** 410 Gone: the receiver asks us to stop sending to this endpoint. */
  | { action: 'disable_endpoint' };

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/**
 * What to do after attempt number `attempt` (1-based) ended with `result`. `random` is in [0, 1)
 * and only used for jitter; `timeScale` shortens every delay (local speed-up; 1 on AWS).
 */
export function decideAfterAttempt(
  attempt: number,
  result: AttemptResult,
  now: Date,
  random: number,
  timeScale = 1,
): DeliveryDecision {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) return { action: 'delivered' };
  if (result.kind === 'response' && result.status === 410) return { action: 'disable_endpoint' };
  if (attempt >= MAX_ATTEMPTS) return { action: 'failed' };
  const scheduled = RETRY_DELAYS_SECONDS[attempt - 1]!;
  const jittered = scheduled * (1 + JITTER * (2 * random - 1));
  const retryAfter = result.kind === 'response' ? parseRetryAfter(result.retryAfter, now) : undefined;
  const delay = retryAfter === undefined ? jittered : Math.max(jittered, Math.min(retryAfter, MAX_RETRY_AFTER_SECONDS));
  return { action: 'retry', delaySeconds: Math.max(0, Math.round((delay * 1000) / timeScale) / 1000) };
}
