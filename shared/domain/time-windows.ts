import { DateTime } from 'luxon';

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

export function isInsideWindow(instant: DateTime, window: DailyWindow): boolean {
  const local = instant.setZone(window.zone);
  if (!window.days.includes(local.weekday)) return false;
  const minute = local.hour * 60 + local.minute;
  return minute >= minutesOf(window.start) && minute < minutesOf(window.end);
}

export const isInsideAll = (instant: DateTime, windows: readonly DailyWindow[]): boolean =>
  windows.every((window) => isInsideWindow(instant, window));

/** Instants at which `window` opens, from the day before `from` for `days` days (DST-aware). */
function openings(window: DailyWindow, from: DateTime, days: number): DateTime[] {
  const startMinutes = minutesOf(window.start);
  const firstDay = from.setZone(window.zone).startOf('day').minus({ days: 1 });
  const result: DateTime[] = [];
  for (let i = 0; i <= days + 1; i += 1) {
    const day = firstDay.plus({ days: i });
    // On a spring-forward day a wall time inside the gap moves forward, as a person's clock would.
    const opening = day.set({ hour: Math.floor(startMinutes / 60), minute: startMinutes % 60 });
    if (window.days.includes(opening.weekday)) result.push(opening);
  }
  return result;
}

/**
 * The first instant at or after `from` that lies inside every window, or null when the windows
 * never overlap within `horizonDays`. The earliest such instant is either `from` itself or the
 * moment one of the windows opens, so only those candidates are checked.
 */
export function nextInstantInsideAll(from: Date, windows: readonly DailyWindow[], horizonDays = 8): Date | null {
  const origin = DateTime.fromJSDate(from, { zone: 'utc' });
  if (isInsideAll(origin, windows)) return from;
  const candidates = windows
    .flatMap((window) => openings(window, origin, horizonDays))
    .filter((candidate) => candidate >= origin)
    .sort((a, b) => a.toMillis() - b.toMillis());
  const found = candidates.find((candidate) => isInsideAll(candidate, windows));
  return found ? found.toJSDate() : null;
}

/** Whether `zone` is an IANA time zone name this runtime knows. */
export const isValidTimeZone = (zone: string): boolean => DateTime.now().setZone(zone).isValid;
