/**
 * Pacing of outbound calls under a provider account's calls-per-second limit (generic cell rate
 * algorithm: the bucket is one timestamp, the next free send slot). Each dial reserves the next
 * slot (shared/repositories/call-rate.ts); slots are spaced by the limit's interval plus headroom for network jitter, so the
 * provider never sees two calls closer than its limit allows and never answers 429.
 */
export const RATE_HEADROOM = 1.1;

export const slotIntervalMs = (callsPerSecond: number): number => Math.ceil((1000 / callsPerSecond) * RATE_HEADROOM);
