import { maxSendLatenessMs } from '../domain/call-rate.ts';
import { logger } from '../observability/logger.ts';
import { reserveCallSlot } from '../repositories/call-rate.ts';

/** Reservations a dialer tries before handing its call back to be dialed later (each late wake-up costs one). */
const MAX_RESERVATIONS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SendSlotClock {
  now: () => number;
  sleep: (ms: number) => Promise<unknown>;
}

/**
 * Waits for the account's next send slot and returns once the call may go, or the wait to hand
 * back when the slot is further than `maxWaitMs` away. The slot is a time read before a write and
 * a timer: a dialer that wakes later than `maxSendLatenessMs` after it (its event loop stalled, as
 * a Lambda's or the local stack's can) gives it up and reserves again, so the calls of every slot
 * missed meanwhile are not sent together (a provider answers such a burst 429).
 */
export async function awaitSendSlot(
  accountKey: string,
  callsPerSecond: number,
  maxWaitMs: number,
  clock: SendSlotClock = { now: Date.now, sleep },
  reserve = reserveCallSlot,
): Promise<{ sendAt: number } | { waitMs: number }> {
  const allowed = maxSendLatenessMs(callsPerSecond);
  let late = 0;
  for (let reservation = 1; reservation <= MAX_RESERVATIONS; reservation += 1) {
    const slot = await reserve(accountKey, callsPerSecond, maxWaitMs, clock.now);
    if ('waitMs' in slot) return slot;
    const delay = slot.slotAt - clock.now();
    if (delay > 0) await clock.sleep(delay);
    late = clock.now() - slot.slotAt;
    if (late <= allowed) return { sendAt: slot.slotAt };
  }
  logger.warn('Send slots missed: the call is dialed later', { accountKey, lateMs: late });
  return { waitMs: maxWaitMs };
}
