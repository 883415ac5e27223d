/**
 * A daily window of local wall-clock time in one IANA zone, on some ISO weekdays
 * (1 = Monday … 7 = Sunday). `start` is inclusive, `end` exclusive, both `HH:MM`.
 */
export interface DailyWindow {
  zone: string;
  days: readonly number[];
  start: string;
  end: string;
}

export const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7] as const;

/** The legal calling hours in the recipient's local time: 08:00-21:00, every day. */
export const LEGAL_CALLING_HOURS = { start: '08:00', end: '21:00' } as const;

export const legalWindows = (zones: readonly string[]): DailyWindow[] =>
  zones.map((zone) => ({ zone, days: ALL_DAYS, ...LEGAL_CALLING_HOURS }));

const minutesOf = (hhmm: string): number => {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours! * 60 + minutes!;
};

/** An instant's wall-clock time in a zone: the calendar day, the ISO weekday and the time of day. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** 1 = Monday … 7 = Sunday. */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** One formatter per zone (building one costs far more than using it); null for a zone the runtime does not know. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterOf(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        weekday: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      formatter = null;
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * Time zones through the runtime's own database (Intl): a few wall-clock reads and offset
 * lookups, not worth a date library in every function that checks calling hours.
 */
export function localTime(instant: number, zone: string): LocalTime | undefined {
  const formatter = formatterOf(zone);
  if (!formatter) return undefined;
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatter.formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday!) + 1,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(instant: number, zone: string): number {
  const local = localTime(instant, zone)!;
  const wholeSecond = instant - (((instant % 1000) + 1000) % 1000);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - wholeSecond;
}

/**
 * The instant of a wall-clock time (as UTC fields, `wallClock`) in `zone`, starting from the guess
 * that the offset is `offsetGuess`. A time in a spring-forward gap moves forward by the gap, as a
 * person's clock would; a time that occurs twice (fall-back) is the occurrence with `offsetGuess`
 * when it has one (luxon's rule).
 */
function instantOf(wallClock: number, zone: string, offsetGuess: number): number {
  const guess = wallClock - offsetGuess;
  const offset = offsetAt(guess, zone);
  if (offset === offsetGuess) return guess;
  const corrected = guess - (offset - offsetGuess);
  const correctedOffset = offsetAt(corrected, zone);
  if (offset === correctedOffset) return corrected;
  return wallClock - Math.min(offset, correctedOffset);
}

export function isInsideWindow(instant: number, window: DailyWindow): boolean {
  const local = localTime(instant, window.zone);
  if (!local || !window.days.includes(local.weekday)) return false;
  const minute = local.hour * 60 + local.minute;
  return minute >= minutesOf(window.start) && minute < minutesOf(window.end);
}

export const isInsideAll = (instant: number, windows: readonly DailyWindow[]): boolean =>
  windows.every((window) => isInsideWindow(instant, window));

/** Instants at which `window` opens, from the day before `from` for `days` days (DST-aware). */
function openings(window: DailyWindow, from: number, days: number): number[] {
  const local = localTime(from, window.zone);
  if (!local) return [];
  const startMinutes = minutesOf(window.start);
  const result: number[] = [];
  let offset = offsetAt(from, window.zone);
  for (let i = -1; i <= days; i += 1) {
    // Midnight of the day first (its offset), then the opening time on it: DST changes at night
    // give the opening that day's offset.
    const midnight = Date.UTC(local.year, local.month - 1, local.day + i);
    offset = offsetAt(instantOf(midnight, window.zone, offset), window.zone);
    const opening = instantOf(midnight + startMinutes * 60_000, window.zone, offset);
    if (window.days.includes(localTime(opening, window.zone)!.weekday)) result.push(opening);
  }
  return result;
}

/**
 * The first instant at or after `from` that lies inside every window, or null when the windows
 * never overlap within `horizonDays`. The earliest such instant is either `from` itself or the
 * moment one of the windows opens, so only those candidates are checked.
 */
export function nextInstantInsideAll(from: Date, windows: readonly DailyWindow[], horizonDays = 8): Date | null {
  const origin = from.getTime();
  if (isInsideAll(origin, windows)) return from;
  const candidates = windows
    .flatMap((window) => openings(window, origin, horizonDays))
    .filter((candidate) => candidate >= origin)
    .sort((a, b) => a - b);
  const found = candidates.find((candidate) => isInsideAll(candidate, windows));
  return found === undefined ? null : new Date(found);
}

/** Whether `zone` is an IANA time zone name this runtime knows. */
export const isValidTimeZone = (zone: string): boolean => formatterOf(zone) !== null;
