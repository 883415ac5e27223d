import { describe, expect, it } from 'vitest';
import { decideCallingHours } from '../../shared/domain/calling-hours.ts';
import { DateTime } from 'luxon';
import {
  isInsideAll,
  isValidTimeZone,
  legalWindows,
  localTime,
  nextInstantInsideAll,
  type DailyWindow,
} from '../../shared/domain/time-windows.ts';

const at = (iso: string) => new Date(iso);
const weekdays = (zone: string, start = '09:00', end = '17:00'): DailyWindow => ({
  zone,
  days: [1, 2, 3, 4, 5],
  start,
  end,
});

describe('legal calling hours (08:00-21:00 in every zone of the number)', () => {
  it.each<[string, string[], string, string | null]>([
    ['inside in Warsaw', ['Europe/Warsaw'], '2026-11-23T10:00:00Z', '2026-11-23T10:00:00.000Z'],
    ['before 08:00 Warsaw (CET, UTC+1)', ['Europe/Warsaw'], '2026-11-23T06:30:00Z', '2026-11-23T07:00:00.000Z'],
    ['exactly 21:00 Warsaw is outside', ['Europe/Warsaw'], '2026-11-23T20:00:00Z', '2026-11-24T07:00:00.000Z'],
    ['20:59 Warsaw is inside', ['Europe/Warsaw'], '2026-11-23T19:59:00Z', '2026-11-23T19:59:00.000Z'],
    ['summer time Warsaw (CEST, UTC+2)', ['Europe/Warsaw'], '2026-07-01T05:00:00Z', '2026-07-01T06:00:00.000Z'],
    ['New York before 8 (EST)', ['America/New_York'], '2026-11-23T12:00:00Z', '2026-11-23T13:00:00.000Z'],
    // US number spanning zones: both must be inside; LA opens last.
    [
      'New York + Los Angeles',
      ['America/New_York', 'America/Los_Angeles'],
      '2026-11-23T14:00:00Z',
      '2026-11-23T16:00:00.000Z',
    ],
    // Two 13-hour daily windows always overlap somewhere: Honolulu and Warsaw are 11 h apart.
    [
      'Honolulu + Warsaw overlap',
      ['Pacific/Honolulu', 'Europe/Warsaw'],
      '2026-11-23T12:00:00Z',
      '2026-11-23T18:00:00.000Z',
    ],
  ])('%s', (_name, zones, from, expected) => {
    const next = nextInstantInsideAll(at(from), legalWindows(zones));
    expect(next?.toISOString() ?? null).toBe(expected);
  });
});

describe('campaign windows across DST changes', () => {
  it.each<[string, DailyWindow, string, string]>([
    // Warsaw springs forward on Sunday 2026-03-29; Monday 09:00 is CEST (UTC+2).
    [
      'Warsaw Friday evening before spring-forward → Monday 09:00 CEST',
      weekdays('Europe/Warsaw'),
      '2026-03-27T17:00:00Z',
      '2026-03-30T07:00:00.000Z',
    ],
    // Warsaw falls back on Sunday 2026-10-25; Monday 09:00 is CET (UTC+1).
    [
      'Warsaw Friday evening before fall-back → Monday 09:00 CET',
      weekdays('Europe/Warsaw'),
      '2026-10-23T16:00:00Z',
      '2026-10-26T08:00:00.000Z',
    ],
    // New York springs forward on Sunday 2026-03-08.
    [
      'New York weekend across spring-forward',
      weekdays('America/New_York'),
      '2026-03-07T15:00:00Z',
      '2026-03-09T13:00:00.000Z',
    ],
    // New York falls back on Sunday 2026-11-01.
    [
      'New York weekend across fall-back',
      weekdays('America/New_York'),
      '2026-10-31T15:00:00Z',
      '2026-11-02T14:00:00.000Z',
    ],
    // A window opening inside the spring-forward gap (02:30 does not exist on that day in New York).
    [
      'window inside the DST gap opens when the clock jumps',
      { zone: 'America/New_York', days: [7], start: '02:30', end: '04:00' },
      '2026-03-08T05:00:00Z',
      '2026-03-08T07:30:00.000Z',
    ],
  ])('%s', (_name, window, from, expected) => {
    expect(nextInstantInsideAll(at(from), [window])?.toISOString()).toBe(expected);
  });

  it('returns null when the windows never meet', () => {
    const windows = [
      { zone: 'Europe/Warsaw', days: [1], start: '09:00', end: '10:00' },
      ...legalWindows(['Pacific/Honolulu']),
    ];
    expect(nextInstantInsideAll(at('2026-11-23T12:00:00Z'), windows)).toBeNull();
  });

  it('combines the campaign window with the legal hours of the recipient', () => {
    // Campaign dials 09:00-17:00 Warsaw; recipient in New York may only be called from 08:00 local (14:00 Warsaw).
    const windows = [weekdays('Europe/Warsaw'), ...legalWindows(['America/New_York'])];
    expect(nextInstantInsideAll(at('2026-11-23T08:00:00Z'), windows)?.toISOString()).toBe('2026-11-23T13:00:00.000Z');
    expect(isInsideAll(Date.parse('2026-11-23T15:59:00Z'), windows)).toBe(true);
    expect(isInsideAll(Date.parse('2026-11-23T16:00:00Z'), windows)).toBe(false);
  });
});

describe('being inside windows changes only as a UTC minute begins', () => {
  // The campaign dispatcher checks a fetched contact once for the minute it was fetched in
  // (services/campaign-dispatch.ts); that holds only if no window opens or closes within a minute,
  // odd offsets (Kolkata +5:30, Kathmandu +5:45, Chatham +12:45) and DST changes included.
  it.each<[string, string, string, string]>([
    ['Asia/Kolkata', '09:00', '17:00', '2026-11-23T03:30:00Z'],
    ['Asia/Kathmandu', '08:00', '21:00', '2026-11-23T02:15:00Z'],
    ['Pacific/Chatham', '09:00', '10:00', '2026-11-22T20:15:00Z'],
    // Summer time ends at 02:00 (+11 → +10:30), and begins at 02:00 (+1 → +2).
    ['Australia/Lord_Howe', '01:45', '02:15', '2026-04-04T15:00:00Z'],
    ['Europe/Warsaw', '03:00', '04:00', '2026-03-29T01:00:00Z'],
    ['America/New_York', '09:00', '17:00', '2026-11-23T22:00:00Z'],
  ])('%s %s-%s around %s', (zone, start, end, around) => {
    const windows = [{ zone, days: [1, 2, 3, 4, 5, 6, 7], start, end }];
    const centre = Date.parse(around);
    let changesSeen = 0;
    for (let minute = centre - 3 * 3_600_000; minute < centre + 3 * 3_600_000; minute += 60_000) {
      const inside = isInsideAll(minute, windows);
      for (const offset of [1, 29_999, 59_999]) expect(isInsideAll(minute + offset, windows)).toBe(inside);
      if (inside !== isInsideAll(minute - 1, windows)) changesSeen += 1;
    }
    // Each case crosses at least one opening or closing, at a minute's start.
    expect(changesSeen).toBeGreaterThan(0);
  });
});

describe('wall-clock time in a zone (Intl), checked against luxon', () => {
  // DST at midnight (Santiago, Havana), half-hour DST (Lord Howe), odd offsets (Kathmandu, Chatham).
  const zones = [
    'Europe/Warsaw',
    'America/New_York',
    'America/Santiago',
    'America/Havana',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Pacific/Chatham',
  ];
  it.each(zones)('%s, every 97 minutes through 2026', (zone) => {
    for (let instant = Date.UTC(2026, 0, 1); instant < Date.UTC(2027, 0, 1); instant += 97 * 60_000) {
      const expected = DateTime.fromMillis(instant, { zone });
      const { year, month, day, weekday, hour, minute, second } = expected;
      expect(localTime(instant, zone), new Date(instant).toISOString()).toEqual({
        year,
        month,
        day,
        weekday,
        hour,
        minute,
        second,
      });
    }
  });

  it.each<[string, boolean]>([
    ['Europe/Warsaw', true],
    ['America/Argentina/Buenos_Aires', true],
    ['UTC', true],
    ['Etc/GMT+3', true],
    ['Europe/Nowhere', false],
    ['', false],
    // Not zone names: the server's own zone, luxon's fixed-offset syntax.
    ['local', false],
    ['utc+3', false],
  ])('%j is a time zone: %s', (zone, valid) => {
    expect(isValidTimeZone(zone)).toBe(valid);
  });
});

describe('decideCallingHours', () => {
  const at = (iso: string) => new Date(iso);
  it.each([
    // [now (UTC), zones, allowed, retry_at]
    ['2026-11-23T12:00:00Z', ['Europe/Warsaw'], true, undefined],
    ['2026-11-23T06:59:59Z', ['Europe/Warsaw'], false, '2026-11-23T07:00:00.000Z'],
    ['2026-11-23T20:00:00Z', ['Europe/Warsaw'], false, '2026-11-24T07:00:00.000Z'],
    // A US number whose area code spans zones: New York opens at 13:00Z, Los Angeles at 16:00Z.
    ['2026-11-23T14:00:00Z', ['America/New_York', 'America/Los_Angeles'], false, '2026-11-23T16:00:00.000Z'],
    ['2026-11-23T16:00:00Z', ['America/New_York', 'America/Los_Angeles'], true, undefined],
    ['2026-11-23T03:00:00Z', [], true, undefined],
  ] as const)('at %s in %j: allowed %s, retry at %s', (now, zones, allowed, retryAt) => {
    const decision = decideCallingHours(at(now), zones);
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed) expect(decision.retryAt.toISOString()).toBe(retryAt);
  });
});
