import { describe, expect, it } from 'vitest';
import { callCost, PLATFORM_USD_PER_MINUTE, TELEPHONY_USD_PER_MINUTE } from '../../shared/domain/call-outcome.ts';

describe('call cost', () => {
  it.each([
    // seconds, over the phone, telephony, platform
    [0, true, 0, 0],
    [1, true, TELEPHONY_USD_PER_MINUTE, PLATFORM_USD_PER_MINUTE],
    [60, true, TELEPHONY_USD_PER_MINUTE, PLATFORM_USD_PER_MINUTE],
    [61, true, 2 * TELEPHONY_USD_PER_MINUTE, 2 * PLATFORM_USD_PER_MINUTE],
    // A browser or chat session has no telephony leg.
    [61, false, 0, 2 * PLATFORM_USD_PER_MINUTE],
    [0, false, 0, 0],
  ])('%i s (over the phone: %s) costs %d telephony and %d platform', (seconds, overPhone, telephony, platform) => {
    expect(callCost(seconds, overPhone)).toEqual({
      currency: 'USD',
      telephony_usd: telephony,
      platform_usd: platform,
      total_usd: Math.round((telephony + platform) * 10_000) / 10_000,
    });
  });

  it.each([
    // a 90 s call whose agent talked 40 s, then a 45 s transfer leg: telephony 2 + 1 minutes, platform 1
    [90, 40, 45, 3 * TELEPHONY_USD_PER_MINUTE, PLATFORM_USD_PER_MINUTE],
    // a transfer nobody answered: no second leg
    [30, 25, 0, TELEPHONY_USD_PER_MINUTE, PLATFORM_USD_PER_MINUTE],
    [130, 70, 61, 5 * TELEPHONY_USD_PER_MINUTE, 2 * PLATFORM_USD_PER_MINUTE],
  ])(
    'a transferred call of %i s (agent %i s, transfer leg %i s) costs %d telephony and %d platform',
    (seconds, agentSeconds, transferLegSeconds, telephony, platform) => {
      expect(callCost(seconds, true, { agentSeconds, transferLegSeconds })).toMatchObject({
        telephony_usd: Math.round(telephony * 10_000) / 10_000,
        platform_usd: platform,
      });
    },
  );
});
