import { ORGANIZATION_RATE_LIMIT, THROTTLE_RETRY_AFTER_SECONDS } from '../api/gateway.ts';

/**
 * API Gateway's usage-plan throttling, per usage identifier key: a token bucket holding up to
 * `burstLimit` requests, refilled at `rateLimit` per second. The local gateway throttles with it
 * (exactly as the plan does); each API function counts with it what it answered itself, for the
 * `RateLimit` header.
 */
export class UsagePlanThrottle {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(private readonly limits: { rateLimit: number; burstLimit: number }) {}

  /** Takes one request's token; false when the key is over its limit (429). */
  take(key: string, now = Date.now()): boolean {
    const bucket = this.refilled(key, now);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Whole requests left now, and seconds until the bucket is full again. */
  state(key: string, now = Date.now()): { remaining: number; fullInSeconds: number } {
    const { tokens } = this.refilled(key, now);
    return {
      remaining: Math.floor(tokens),
      fullInSeconds: Math.ceil((this.limits.burstLimit - tokens) / this.limits.rateLimit),
    };
  }

  private refilled(key: string, now: number) {
    const bucket = this.buckets.get(key) ?? { tokens: this.limits.burstLimit, updatedAt: now };
    bucket.tokens = Math.min(
      this.limits.burstLimit,
      bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.limits.rateLimit,
    );
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    return bucket;
  }
}

/**
 * The per-organization limit in the IETF draft's terms (draft-ietf-httpapi-ratelimit-headers):
 * the usage plan's bucket holds `burstLimit` requests and refills from empty in
 * `burstLimit / rateLimit` seconds, so the quota is `q` requests per `w` seconds.
 */
const POLICY = 'organization';
export const RATE_LIMIT_POLICY = `"${POLICY}";q=${ORGANIZATION_RATE_LIMIT.burstLimit};w=${ORGANIZATION_RATE_LIMIT.burstLimit / ORGANIZATION_RATE_LIMIT.rateLimit}`;

/** `RateLimit`: `r` requests left in the policy, `t` seconds until the quota is whole again. */
export const rateLimitHeaders = (remaining: number, resetSeconds: number): Record<string, string> => ({
  'RateLimit-Policy': RATE_LIMIT_POLICY,
  RateLimit: `"${POLICY}";r=${Math.max(0, remaining)};t=${Math.max(0, resetSeconds)}`,
});

/** What the gateway's own 429 carries: the quota is used up, whole again after Retry-After (exact). */
export const THROTTLED_HEADERS: Record<string, string> = {
  ...rateLimitHeaders(0, THROTTLE_RETRY_AFTER_SECONDS),
  'Retry-After': String(THROTTLE_RETRY_AFTER_SECONDS),
};

/**
 * The organization's quota as this function instance saw it. API Gateway enforces the plan but
 * does not tell the function what is left, so each instance keeps the plan's bucket for the
 * requests it answered itself: `r` is an upper bound (other instances and functions spend from the
 * same quota), `t` a lower bound. Only the gateway's 429 (`r=0`) is exact.
 */
const seen = new UsagePlanThrottle(ORGANIZATION_RATE_LIMIT);

export function organizationRateLimitHeaders(organizationId: number, now = Date.now()): Record<string, string> {
  const key = String(organizationId);
  seen.take(key, now);
  const { remaining, fullInSeconds } = seen.state(key, now);
  return rateLimitHeaders(remaining, fullInSeconds);
}
