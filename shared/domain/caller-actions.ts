/**
 * What a simulated caller's turn does on a voice line: words said, keys pressed on the keypad, or
 * nothing (the caller stays silent). A turn is written as words, `[pressed 12#]` (the keys, as a
 * call's transcript writes a keypad entry) or `[silence]`, in a script and in the model's answer
 * alike. Pure.
 */

/** Test cases talk over the chat transport (`text`, the default) or a voice session (`voice`). */
export const TEST_MODES = ['text', 'voice'] as const;
export type TestMode = (typeof TEST_MODES)[number];

export type CallerAction = { kind: 'say'; text: string } | { kind: 'keys'; keys: string } | { kind: 'silence' };

const KEYS = /^\[pressed ([0-9*#A-D]{1,32})\]$/;
const SILENCE = /^\[silence\]$/i;

export function callerAction(turn: string): CallerAction {
  const words = turn.trim();
  const keys = KEYS.exec(words)?.[1];
  if (keys) return { kind: 'keys', keys };
  if (SILENCE.test(words)) return { kind: 'silence' };
  return { kind: 'say', text: words };
}

/** A line only a voice case can carry out (a chat has no keypad and no silence). */
export const isVoiceOnly = (turn: string): boolean => callerAction(turn).kind !== 'say';

/** How the model playing a voice caller writes keys and silence (callerRequest). */
export const VOICE_ACTIONS_HELP =
  'On this phone line you may press keys instead of speaking: say "[pressed 1]" (the keys, # and * too), or stay silent for a turn: say "[silence]".';

/** How far into the agent's answer a caller who interrupts starts talking (line time). */
export const BARGE_IN_AFTER_MS = 400;
/** How long after the agent's answer has played a caller starts talking (line time). */
export const REPLY_PAUSE_MS = 300;
