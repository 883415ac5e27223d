/**
 * Pacing of outbound calls under a provider account's calls-per-second limit (generic cell rate
 * algorithm: the bucket is one timestamp, the next free send slot). Each dial reserves the next
 * slot (shared/repositories/call-rate.ts); slots are spaced by the limit's interval plus headroom for network jitter, so the
 * provider never sees two calls closer than its limit allows and never answers 429.
 */
export const RATE_HEADROOM = 1.1;

export const slotIntervalMs = (callsPerSecond: number): number => Math.ceil((1000 / callsPerSecond) * RATE_HEADROOM);

/**
 * How far behind now the next free slot may be and still be taken (a slot in the past dials at
 * once): the algorithm's burst tolerance. A bucket that keeps the schedule within it costs one
 * write per dial (slots only move on), where a zero tolerance needs a second write whenever dials
 * come slower than the limit. It lets at most 1 + tolerance / interval calls go back to back,
 * held to half of what a provider bucket holding one second of its limit absorbs, and to none for
 * a limit of one call per second (such a bucket holds a single call).
 */
export const burstToleranceMs = (callsPerSecond: number): number =>
  Math.floor((500 * Math.max(0, callsPerSecond - 1)) / callsPerSecond);
