import { describe, expect, it } from 'vitest';
import {
  decideAfterAttempt,
  MAX_ATTEMPTS,
  parseRetryAfter,
  type AttemptResult,
} from '../../shared/domain/webhook-retry.ts';

const now = new Date('2026-11-22T12:00:00Z');
const status = (code: number, retryAfter?: string): AttemptResult => ({ kind: 'response', status: code, retryAfter });

describe('webhook delivery decisions', () => {
  it.each<[string, number, AttemptResult, number, ReturnType<typeof decideAfterAttempt>]>([
    ['2xx is delivered', 1, status(204), 0.5, { action: 'delivered' }],
    ['410 disables the endpoint', 3, status(410), 0.5, { action: 'disable_endpoint' }],
    ['first failure → 5 s', 1, status(500), 0.5, { action: 'retry', delaySeconds: 5 }],
    ['second failure → 5 min', 2, { kind: 'timeout' }, 0.5, { action: 'retry', delaySeconds: 300 }],
    ['network error → schedule', 3, { kind: 'network_error' }, 0.5, { action: 'retry', delaySeconds: 1800 }],
    ['ninth failure → 24 h', 9, status(503), 0.5, { action: 'retry', delaySeconds: 86400 }],
    ['tenth failure gives up', MAX_ATTEMPTS, status(503), 0.5, { action: 'failed' }],
    ['jitter low end −10 %', 4, status(500), 0, { action: 'retry', delaySeconds: 6480 }],
    ['jitter high end +10 %', 4, status(500), 1, { action: 'retry', delaySeconds: 7920 }],
    ['Retry-After longer than the schedule wins', 1, status(429, '120'), 0.5, { action: 'retry', delaySeconds: 120 }],
    [
      'Retry-After shorter than the schedule is not honoured early',
      2,
      status(429, '10'),
      0.5,
      { action: 'retry', delaySeconds: 300 },
    ],
    [
      'Retry-After as an HTTP date',
      1,
      status(503, 'Sun, 22 Nov 2026 12:10:00 GMT'),
      0.5,
      { action: 'retry', delaySeconds: 600 },
    ],
    ['Retry-After is capped at 24 h', 1, status(503, '999999'), 0.5, { action: 'retry', delaySeconds: 86400 }],
  ])('%s', (_name, attempt, result, random, expected) => {
    expect(decideAfterAttempt(attempt, result, now, random)).toEqual(expected);
  });

  it('a time scale shortens every delay (local speed-up)', () => {
    expect(decideAfterAttempt(2, status(500), now, 0.5, 100)).toEqual({ action: 'retry', delaySeconds: 3 });
  });
});

describe('parseRetryAfter', () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['30', 30],
    [' 7 ', 7],
    ['Sun, 22 Nov 2026 12:00:30 GMT', 30],
    ['Sun, 22 Nov 2026 11:00:00 GMT', 0],
    ['soon', undefined],
  ])('%o → %o', (value, expected) => expect(parseRetryAfter(value, now)).toBe(expected));
});
