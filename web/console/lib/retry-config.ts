/** A campaign's retry settings from the one thing the console asks: how many retries after a busy or unanswered call. */
import type { Schemas } from './api.ts';

export function retryConfigOf(retries: number, delaySeconds = 3600): NonNullable<Schemas['RetryConfig']> {
  return {
    enabled: retries > 0,
    max_retries: retries,
    retry_delay_seconds: delaySeconds,
    retry_on_busy: true,
    retry_on_no_answer: true,
    retry_on_voicemail: false,
    smart_timing: false,
  };
}
