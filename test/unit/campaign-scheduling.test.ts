import { describe, expect, it } from 'vitest';
import {
  contactWindows,
  decideAfterCall,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
} from '../../shared/domain/campaign-scheduling.ts';
import { nextCampaignState } from '../../shared/domain/campaign-states.ts';
import { nextInstantInsideAll } from '../../shared/domain/time-windows.ts';

const weekdays = { timezone: 'Europe/Warsaw', days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' };
const warsaw = contactWindows(weekdays, ['Europe/Warsaw']);
const at = (iso: string) => new Date(iso);

describe('contact windows (campaign window ∩ legal hours of the contact)', () => {
  it.each([
    // [now, campaign window, contact zones, next allowed instant]
    ['2026-11-23T10:00:00Z', weekdays, ['Europe/Warsaw'], '2026-11-23T10:00:00.000Z'], // Monday 11:00 Warsaw
    ['2026-11-23T16:30:00Z', weekdays, ['Europe/Warsaw'], '2026-11-24T08:00:00.000Z'], // after 17:00 → Tuesday 09:00
    ['2026-11-28T10:00:00Z', weekdays, ['Europe/Warsaw'], '2026-11-30T08:00:00.000Z'], // Saturday → Monday
    // Warsaw window, New York contact: 09:00-17:00 Warsaw ∩ 08:00-21:00 New York = 14:00-17:00 Warsaw.
    ['2026-11-23T08:00:00Z', weekdays, ['America/New_York'], '2026-11-23T13:00:00.000Z'],
    // DST: Warsaw springs forward on 2026-03-29 (Sunday); Monday 09:00 is then 07:00Z.
    ['2026-03-27T16:30:00Z', weekdays, ['Europe/Warsaw'], '2026-03-30T07:00:00.000Z'],
    // DST: New York falls back on 2026-11-01; Monday 08:00 EST is 13:00Z (14:00 Warsaw).
    [
      '2026-10-30T20:00:00Z',
      { ...weekdays, timezone: 'America/New_York', start: '08:00', end: '12:00' },
      ['America/New_York'],
      '2026-11-02T13:00:00.000Z',
    ],
    // No campaign window: the legal hours alone.
    ['2026-11-23T22:00:00Z', null, ['Europe/Warsaw'], '2026-11-24T07:00:00.000Z'],
  ] as const)('at %s with window %j and zones %j → %s', (now, window, zones, expected) => {
    expect(nextInstantInsideAll(at(now), contactWindows(window, zones))?.toISOString()).toBe(expected);
  });
});

describe('decideAfterCall (retry policy)', () => {
  const base = {
    attemptedAt: at('2026-11-23T10:00:00Z'),
    endedAt: at('2026-11-23T10:01:00Z'),
    windows: warsaw,
    zone: 'Europe/Warsaw',
  };
  const policy = (changes: Partial<RetryPolicy> = {}): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, ...changes });

  it.each([
    ['completed is final', policy(), 'completed', 1, { kind: 'final', status: 'completed' }],
    ['failed is final', policy(), 'failed', 1, { kind: 'final', status: 'failed' }],
    ['busy retries after the delay', policy(), 'busy', 1, { kind: 'retry', at: at('2026-11-23T11:01:00Z') }],
    ['no answer retries', policy(), 'no_answer', 1, { kind: 'retry', at: at('2026-11-23T11:01:00Z') }],
    ['voicemail does not retry by default', policy(), 'voicemail', 1, { kind: 'final', status: 'voicemail' }],
    [
      'voicemail retries when enabled',
      policy({ retry_on_voicemail: true }),
      'voicemail',
      1,
      { kind: 'retry', at: at('2026-11-23T11:01:00Z') },
    ],
    ['busy off', policy({ retry_on_busy: false }), 'busy', 1, { kind: 'final', status: 'busy' }],
    ['retries exhausted (1 retry used)', policy(), 'busy', 2, { kind: 'final', status: 'busy' }],
    [
      'max_retries 3, third retry allowed',
      policy({ max_retries: 3 }),
      'busy',
      3,
      { kind: 'retry', at: at('2026-11-23T11:01:00Z') },
    ],
    ['max_retries 0', policy({ max_retries: 0 }), 'busy', 1, { kind: 'final', status: 'busy' }],
    ['retries disabled', policy({ enabled: false }), 'busy', 1, { kind: 'final', status: 'busy' }],
    [
      'delay past the window moves to the next opening',
      policy({ retry_delay_seconds: 7 * 3600 }),
      'busy',
      1,
      { kind: 'retry', at: at('2026-11-24T08:00:00Z') },
    ],
    // Failed at 11:00 Warsaw; +1 h = 12:01, within 3 h of 11:00 → +4 h = 16:01 Warsaw.
    [
      'smart timing moves to another time of day',
      policy({ smart_timing: true }),
      'busy',
      1,
      { kind: 'retry', at: at('2026-11-23T15:01:00Z') },
    ],
    // +5 h lands at 16:01, already 5 h from 11:00: unchanged.
    [
      'smart timing keeps a retry already far enough',
      policy({ smart_timing: true, retry_delay_seconds: 5 * 3600 }),
      'busy',
      1,
      { kind: 'retry', at: at('2026-11-23T15:01:00Z') },
    ],
  ] as const)('%s', (_name, retryPolicy, outcome, attempts, expected) => {
    expect(decideAfterCall({ ...base, policy: retryPolicy, outcome, attempts })).toEqual(expected);
  });

  it('divides the delay by the local time scale', () => {
    expect(
      decideAfterCall({
        ...base,
        policy: policy({ retry_delay_seconds: 60 }),
        outcome: 'busy',
        attempts: 1,
        timeScale: 60,
      }),
    ).toEqual({
      kind: 'retry',
      at: at('2026-11-23T10:01:01Z'),
    });
  });
});

describe('campaign state transitions', () => {
  it.each([
    ['draft', 'start', 'running'],
    ['scheduled', 'start', 'running'],
    ['running', 'pause', 'paused'],
    ['paused', 'resume', 'running'],
    ['paused', 'cancel', 'cancelled'],
    ['draft', 'cancel', 'cancelled'],
  ] as const)('%s --%s--> %s', (from, action, to) => {
    expect(nextCampaignState(from, action)).toBe(to);
  });

  it.each([
    ['running', 'start'],
    ['draft', 'pause'],
    ['running', 'resume'],
    ['completed', 'cancel'],
    ['cancelled', 'resume'],
  ] as const)('%s cannot %s (409)', (from, action) => {
    expect(() => nextCampaignState(from, action)).toThrow(/Cannot/);
  });
});
