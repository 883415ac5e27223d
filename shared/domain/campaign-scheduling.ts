import type { CallOutcome } from './call-outcome.ts';
import { legalWindows, localTime, nextInstantInsideAll, type DailyWindow } from './time-windows.ts';

export interface CampaignWindowSetting {
  timezone: string;
  days: number[];
  start: string;
  end: string;
}

export interface RetryPolicy {
  enabled: boolean;
  max_retries: number;
  retry_delay_seconds: number;
  retry_on_busy: boolean;
  retry_on_no_answer: boolean;
  retry_on_voicemail: boolean;
  smart_timing: boolean;
}

/** RetryConfig's defaults: a campaign created without one retries busy and no-answer once after an hour. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  enabled: true,
  max_retries: 1,
  retry_delay_seconds: 3600,
  retry_on_busy: true,
  retry_on_no_answer: true,
  retry_on_voicemail: false,
  smart_timing: false,
};

/**
 * Where a contact may be dialed: inside the campaign's window (if it has one) and inside
 * 08:00-21:00 in every zone of the contact (its own `timezone` column, or the number's zones).
 */
export function contactWindows(
  campaignWindow: CampaignWindowSetting | null | undefined,
  contactZones: readonly string[],
): DailyWindow[] {
  const windows = legalWindows(contactZones);
  if (campaignWindow)
    windows.push({
      zone: campaignWindow.timezone,
      days: campaignWindow.days,
      start: campaignWindow.start,
      end: campaignWindow.end,
    });
  return windows;
}

export type AfterCall = { kind: 'final'; status: CallOutcome } | { kind: 'retry'; at: Date };

const RETRYABLE: Partial<Record<CallOutcome, keyof RetryPolicy>> = {
  busy: 'retry_on_busy',
  no_answer: 'retry_on_no_answer',
  voicemail: 'retry_on_voicemail',
};

/** Hours between the times of day of two instants in `zone`, the short way round the clock (NaN for an unknown zone). */
const hoursApart = (a: number, b: number, zone: string): number => {
  const [first, second] = [localTime(a, zone), localTime(b, zone)];
  if (!first || !second) return Number.NaN;
  const difference = Math.abs(first.hour + first.minute / 60 - (second.hour + second.minute / 60));
  return Math.min(difference, 24 - difference);
};

const SMART_MIN_HOURS_APART = 3;
const SMART_SHIFT_HOURS = 4;

/**
 * What happens to a contact after attempt number `attempts` ended with `outcome` at `endedAt`.
 * Retries only for the enabled outcomes, at most `max_retries`, `retry_delay_seconds` after the
 * call (divided by `timeScale`, the local speed-up), moved into the next allowed instant of
 * `windows`. With `smart_timing` a retry that would land within 3 hours of the failed attempt's
 * time of day (in `zone`) moves 4 hours later first, so the contact is tried at another part of
 * the day. A retry that never fits a window (`null`) makes the outcome final.
 */
export function decideAfterCall(input: {
  policy: RetryPolicy;
  outcome: CallOutcome;
  attempts: number;
  attemptedAt: Date;
  endedAt: Date;
  windows: readonly DailyWindow[];
  zone: string;
  timeScale?: number;
}): AfterCall {
  const { policy, outcome, attempts } = input;
  const flag = RETRYABLE[outcome];
  const retriesUsed = attempts - 1;
  if (!policy.enabled || !flag || !policy[flag] || retriesUsed >= policy.max_retries)
    return { kind: 'final', status: outcome };
  let earliest = input.endedAt.getTime() + (policy.retry_delay_seconds * 1000) / (input.timeScale ?? 1);
  if (policy.smart_timing && hoursApart(earliest, input.attemptedAt.getTime(), input.zone) < SMART_MIN_HOURS_APART)
    earliest += SMART_SHIFT_HOURS * 3_600_000;
  const at = nextInstantInsideAll(new Date(earliest), input.windows);
  return at ? { kind: 'retry', at } : { kind: 'final', status: outcome };
}
