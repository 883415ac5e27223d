import { legalWindows, nextInstantInsideAll } from './time-windows.ts';

export type CallingHoursDecision = { allowed: true } | { allowed: false; retryAt: Date; zones: string[] };

/**
 * Whether `now` is inside 08:00-21:00 local time in every zone the recipient's number may be in.
 * Outside, `retryAt` is the next instant inside the hours of all of them. A number with no known
 * zone (non-geographic services) is not restricted: there is no local time to respect.
 */
export function decideCallingHours(now: Date, zones: readonly string[]): CallingHoursDecision {
  if (zones.length === 0) return { allowed: true };
  const next = nextInstantInsideAll(now, legalWindows(zones));
  if (next && next.getTime() === now.getTime()) return { allowed: true };
  // The 08:00-21:00 windows of real zones (at most 26 h apart) always overlap within a day or two.
  return { allowed: false, retryAt: next ?? new Date(now.getTime() + 86_400_000), zones: [...zones] };
}
