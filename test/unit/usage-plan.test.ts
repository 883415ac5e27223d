import { describe, expect, it } from 'vitest';
import { UsagePlanThrottle } from '../../shared/http/rate-limit.ts';

describe('the local usage plan (API Gateway token bucket per usage identifier key)', () => {
  it.each([
    {
      name: 'a burst up to the limit passes, the next request is throttled',
      times: [0, 0, 0, 0],
      expected: [true, true, true, false],
    },
    {
      name: 'tokens refill at the rate: one more after half a second at 2/s',
      times: [0, 0, 0, 0, 500],
      expected: [true, true, true, false, true],
    },
    {
      name: 'the bucket never holds more than the burst',
      times: [0, 10_000, 10_000, 10_000, 10_000],
      expected: [true, true, true, true, false],
    },
  ])('$name', ({ times, expected }) => {
    const throttle = new UsagePlanThrottle({ rateLimit: 2, burstLimit: 3 });
    expect(times.map((at) => throttle.take('org-a', at))).toEqual(expected);
  });

  it('keeps one bucket per organization', () => {
    const throttle = new UsagePlanThrottle({ rateLimit: 1, burstLimit: 1 });
    expect([throttle.take('org-a', 0), throttle.take('org-a', 0), throttle.take('org-b', 0)]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
