import type { RunStatus } from './run.ts';

/** Per-minute prices of the billing record (USD); platform time is billed per started minute. */
export const TELEPHONY_USD_PER_MINUTE = 0.014;
export const PLATFORM_USD_PER_MINUTE = 0.05;

const round = (usd: number) => Math.round(usd * 10_000) / 10_000;

/**
 * Cost of a call of `durationSeconds`: unanswered calls (0 s) cost nothing; a browser or chat
 * session (`overPhone` false) has no telephony leg, only platform time. A transferred call: the
 * platform's time is the agent's part (`agentSeconds`), and the transfer leg is a second
 * telephony leg (`transferLegSeconds`), each billed per started minute. Texts sent during the
 * call (`smsUsd`, by segment) are a part of their own, and so are a realtime engine's model tokens
 * (`speechToSpeechUsd`).
 */
export function callCost(
  durationSeconds: number,
  overPhone = true,
  parts: { agentSeconds?: number; transferLegSeconds?: number; smsUsd?: number; speechToSpeechUsd?: number } = {},
) {
  const minutes = Math.ceil(durationSeconds / 60);
  const legMinutes = Math.ceil((parts.transferLegSeconds ?? 0) / 60);
  const telephony = overPhone ? round((minutes + legMinutes) * TELEPHONY_USD_PER_MINUTE) : 0;
  const platform = round(Math.ceil((parts.agentSeconds ?? durationSeconds) / 60) * PLATFORM_USD_PER_MINUTE);
  const sms = round(parts.smsUsd ?? 0);
  const speechToSpeech = round(parts.speechToSpeechUsd ?? 0);
  return {
    currency: 'USD' as const,
    telephony_usd: telephony,
    platform_usd: platform,
    // Only a call that sent texts has the part (its segments, domain/text-messages.ts).
    ...(sms > 0 ? { sms_usd: sms } : {}),
    // Only a call of the realtime engine has the part (its model's tokens, domain/speech-to-speech-cost.ts).
    ...(speechToSpeech > 0 ? { speech_to_speech_usd: speechToSpeech } : {}),
    total_usd: round(telephony + platform + sms + speechToSpeech),
  };
}

/** Whole seconds between answer and hang-up (the spec's `duration_seconds`). */
export const wholeSeconds = (from: string, to: string): number =>
  Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/** The run status an outcome ends in; everything that is not a conversation is a final non-answer. */
export type CallOutcome = Exclude<RunStatus, 'in_progress' | 'created'>;

/** The `call_disposition` recorded when the agent gathered none (the call did not connect). */
export const DEFAULT_DISPOSITION: Record<CallOutcome, string> = {
  completed: 'completed',
  busy: 'busy',
  no_answer: 'no_answer',
  voicemail: 'voicemail',
  failed: 'failed',
};
