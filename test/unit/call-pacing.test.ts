import { describe, expect, it } from 'vitest';
import { burstToleranceMs, maxSendLatenessMs, slotIntervalMs } from '../../shared/domain/call-rate.ts';
import { awaitSendSlot } from '../../shared/services/send-slot.ts';

/** The provider's limit as the local Twilio applies it: a bucket of one second's calls (at least one), refilled continuously. */
function providerBucket(callsPerSecond: number) {
  const capacity = Math.max(1, callsPerSecond);
  let tokens = capacity;
  let refilledAt = 0;
  let refused = 0;
  return {
    send(at: number) {
      tokens = Math.min(capacity, tokens + ((at - refilledAt) / 1000) * callsPerSecond);
      refilledAt = at;
      if (tokens < 1 - 1e-9) refused += 1;
      else tokens -= 1;
    },
    refused: () => refused,
  };
}

/** shared/repositories/call-rate.ts's bucket in memory: one timestamp, the next free slot. */
function slotBucket(callsPerSecond: number) {
  const interval = slotIntervalMs(callsPerSecond);
  const tolerance = burstToleranceMs(callsPerSecond);
  let nextFree: number | undefined;
  let reservations = 0;
  const reserve = async (
    _account: string,
    _rate: number,
    maxWaitMs: number,
    now = Date.now,
  ): Promise<{ slotAt: number } | { waitMs: number }> => {
    await Promise.resolve();
    reservations += 1;
    const at = now();
    if (nextFree === undefined || nextFree < at - tolerance) {
      nextFree = at + interval;
      return { slotAt: at };
    }
    if (nextFree > at + maxWaitMs) return { waitMs: nextFree - at };
    nextFree += interval;
    return { slotAt: nextFree - interval };
  };
  return { reserve, reservations: () => reservations };
}

describe('send slots under a stalled event loop', () => {
  it.each([[1], [1.5], [2], [5], [20]])(
    '%s call(s) per second: sends within the allowed lateness of their slots conform to the provider bucket',
    (rate) => {
      // Worst cases: every slot up to one sent as late as allowed, the rest on time.
      const interval = slotIntervalMs(rate);
      const late = maxSendLatenessMs(rate);
      for (let lateOnes = 0; lateOnes <= 20; lateOnes += 1) {
        const provider = providerBucket(rate);
        const sends = Array.from({ length: 40 }, (_, slot) => slot * interval + (slot < lateOnes ? late : 0));
        for (const at of sends.sort((a, b) => a - b)) provider.send(at);
        expect(provider.refused()).toBe(0);
      }
    },
  );

  /**
   * Eight dialers of one account on a simulated clock. While the event loop is stalled the clock
   * moves on and no timer fires: every wait that ends inside the stall ends with it.
   */
  const dialers = async (stall: { from: number; to: number } | undefined, send: (at: number) => void, rate: number) => {
    let now = 0;
    const timers: { at: number; fire: () => void }[] = [];
    const clock = {
      now: () => now,
      sleep: (ms: number) => new Promise<void>((fire) => timers.push({ at: now + ms, fire })),
    };
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const slots = slotBucket(rate);
    let done = 0;
    const sent = Array.from({ length: 8 }, async () => {
      for (;;) {
        const slot = await awaitSendSlot('twilio:AC1', rate, 5_000, clock, slots.reserve);
        if ('sendAt' in slot) break;
        await clock.sleep(slot.waitMs);
      }
      send(now);
      done += 1;
    });
    await settle();
    while (done < 8) {
      timers.sort((a, b) => a.at - b.at);
      const timer = timers.shift()!;
      now = Math.max(now, stall && timer.at >= stall.from && timer.at < stall.to ? stall.to : timer.at);
      timer.fire();
      await settle();
    }
    await Promise.all(sent);
    return slots.reservations();
  };

  it('a dialer woken after its slot has passed reserves again: the calls of the slots missed do not go together', async () => {
    const rate = 1.5;
    const provider = providerBucket(rate);
    const sends: number[] = [];
    const reservations = await dialers(
      { from: 1_000, to: 2_600 },
      (at) => {
        sends.push(at);
        provider.send(at);
      },
      rate,
    );
    expect(sends).toHaveLength(8);
    expect(provider.refused()).toBe(0);
    // The two slots missed in the stall (1,468 and 2,202 ms) were reserved again, later.
    expect(reservations).toBeGreaterThanOrEqual(8 + 2);
    const interval = slotIntervalMs(rate);
    for (const [index, at] of sends.slice(1).entries())
      expect(at - sends[index]!).toBeGreaterThanOrEqual(interval - maxSendLatenessMs(rate));
  });

  it('without a stall every dialer sends at its own slot, one interval apart, with one reservation each', async () => {
    const rate = 1.5;
    const sends: number[] = [];
    const reservations = await dialers(undefined, (at) => sends.push(at), rate);
    const interval = slotIntervalMs(rate);
    // Slots up to 5 s ahead are waited for here; the eighth (5,138 ms) is handed back and reserved after its wait.
    expect(sends.slice(0, 7)).toEqual(Array.from({ length: 7 }, (_, index) => index * interval));
    expect(reservations).toBe(9);
  });

  it('hands a call back after three late wake-ups in a row rather than sending it late', async () => {
    let now = 0;
    // Every slot is 100 ms ahead, and every wait for it ends a second late.
    const clock = { now: () => now, sleep: async (ms: number) => void (now += ms + 1_000) };
    let reservations = 0;
    const reserve = async () => {
      reservations += 1;
      return { slotAt: now + 100 };
    };
    expect(await awaitSendSlot('twilio:AC1', 2, 5_000, clock, reserve)).toEqual({ waitMs: 5_000 });
    expect(reservations).toBe(3);
  });
});
