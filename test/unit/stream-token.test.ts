import { describe, expect, it } from 'vitest';
import { burstToleranceMs, RATE_HEADROOM, slotIntervalMs } from '../../shared/domain/call-rate.ts';
import { signStreamToken, verifyStreamToken } from '../../shared/telephony/stream-token.ts';

const KEY = 'unit-test-stream-secret';

describe('media stream credentials', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it('accepts a token minted for the run until it expires', () => {
    const token = signStreamToken(KEY, '1.2.3', 900, now);
    expect(verifyStreamToken(KEY, '1.2.3', token, now)).toBe('valid');
    expect(verifyStreamToken(KEY, '1.2.3', token, now + 899_000)).toBe('valid');
    expect(verifyStreamToken(KEY, '1.2.3', token, now + 901_000)).toBe('expired');
  });

  it.each([
    ['another run', '1.2.4', () => signStreamToken(KEY, '1.2.3', 900, now), 'wrong_run'],
    ['another organization', '2.2.3', () => signStreamToken(KEY, '1.2.3', 900, now), 'wrong_run'],
    [
      'a later expiry written in',
      '1.2.3',
      () => signStreamToken(KEY, '1.2.3', 900, now).replace(/^\d+/, (s) => String(Number(s) + 3600)),
      'wrong_run',
    ],
    ['no token', '1.2.3', () => undefined, 'malformed'],
    ['garbage', '1.2.3', () => 'not-a-token', 'malformed'],
    ['a huge value', '1.2.3', () => 'x'.repeat(10_000), 'malformed'],
  ])('refuses %s', (_name, runRef, token, verdict) => {
    expect(verifyStreamToken(KEY, runRef, token(), now)).toBe(verdict);
  });

  it('refuses a token signed with another secret', () => {
    const token = signStreamToken(KEY, '1.2.3', 900, now);
    expect(verifyStreamToken('another-secret', '1.2.3', token, now)).toBe('wrong_run');
  });
});

describe('call-rate pacing', () => {
  it.each([
    [1, Math.ceil(1000 * RATE_HEADROOM)],
    [2, Math.ceil(500 * RATE_HEADROOM)],
    [10, Math.ceil(100 * RATE_HEADROOM)],
  ])('%s call(s) per second spaces calls by %s ms', (rate, interval) => {
    expect(slotIntervalMs(rate)).toBe(interval);
  });

  // At most 1 + tolerance / interval calls back to back: within half of a one-second provider bucket.
  it.each([
    [0.5, 0, 0],
    [1, 0, 0],
    [1.5, 166, 0],
    [2, 250, 0],
    [20, 475, 8],
    [1000, 499, 249],
  ])('%s call(s) per second: a burst tolerance of %s ms, %s extra calls at most', (rate, tolerance, extra) => {
    expect(burstToleranceMs(rate)).toBe(tolerance);
    expect(Math.floor(tolerance / slotIntervalMs(rate))).toBe(extra);
    expect(1 + extra).toBeLessThanOrEqual(Math.max(1, rate / 2) + 1);
  });
});
