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

/**
 * How late after its slot a call may still be sent: a dialer that wakes later (a stalled event
 * loop, a slow reservation write) reserves a new slot instead, or the calls of every slot missed
 * while it was stalled would reach the provider together. Sends within this of their slots conform
 * to a provider bucket of one second's calls (at least one) refilled at `callsPerSecond`: two
 * consecutive sends are then at least `1000 / callsPerSecond` apart beyond what the bucket holds.
 * Half of that margin beyond the burst tolerance is kept for the way to the provider.
 */
export const maxSendLatenessMs = (callsPerSecond: number): number => {
  const interval = slotIntervalMs(callsPerSecond);
  const capacity = Math.max(1, callsPerSecond);
  const conforming = interval - 1000 / callsPerSecond + (1000 * (capacity - 1)) / callsPerSecond;
  const tolerance = burstToleranceMs(callsPerSecond);
  return tolerance + Math.floor((conforming - tolerance) / 2);
};
