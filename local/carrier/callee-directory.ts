import { FRAME_SAMPLES, frames, synthesizeSpeech } from '../../media/src/audio/tones.ts';
import {
  FLOW_CARD_CALLER_SCRIPT,
  FLOW_LOAN_CALLER_SCRIPT,
  TEXTING_CALLER_SCRIPT,
  TRANSFER_CALLER_SCRIPT,
  WAITING_CALLER_SCRIPT,
  type CallerLine,
} from '../../media/src/streams/caller-script.ts';

/**
 * The local callee directory: what a dialed number reaches, by its last digits, at both simulated
 * carriers alike, and the timings of what happens on the line (detection, text-to-speech, a
 * transfer's talk). Tests and the console pick numbers by these rules.
 */

const FRAME_MS = 20;

/**
 * Outcome of a dialed number, decided by its last digit: 0-6 answered, 7 busy, 8 no answer,
 * 9 answered by an answering machine (which kind: simulatedAnswerer).
 */
export function simulatedOutcome(number: string): 'answered' | 'busy' | 'no-answer' | 'voicemail' {
  const digit = Number(number.at(-1));
  if (digit === 7) return 'busy';
  if (digit === 8) return 'no-answer';
  if (digit === 9) return 'voicemail';
  return 'answered';
}

/**
 * Who picks up an answered call, by the local callee directory (the dialed number, as the last
 * digit decides busy or no answer): a number ending in 9 reaches an answering machine, `…59` one
 * without a beep; `…56` a person whom answering-machine detection cannot classify (`unknown`);
 * anything else a person.
 */
export type SimulatedAnswerer = 'human' | 'unknown' | 'machine_with_beep' | 'machine_without_beep';

export function simulatedAnswerer(number: string): SimulatedAnswerer {
  if (number.endsWith('59')) return 'machine_without_beep';
  if (number.endsWith('9')) return 'machine_with_beep';
  if (number.endsWith('56')) return 'unknown';
  return 'human';
}

/** An answering machine's greeting on the line: its audio frames and when it is over (beep included). */
export interface AnsweringMachine {
  frames: Int16Array[];
  greetingMs: number;
  beep: boolean;
}

/**
 * Timing of the providers' detection, as they report it: a verdict (person, machine) a few seconds
 * after the answer, `unknown` when detection times out (Twilio's default is 30 s; shortened
 * here), the greeting's end once the greeting, its beep or the silence after it are over.
 */
export const DETECTION_MS = { verdict: 2_500, unknown: 5_000, silenceAfterGreeting: 1_500 } as const;

/** What a phone menu says: its choices, then which keys it heard. */
export const menuScript = (heard: string) => [
  'For appointments press 2, for prices press 3.',
  heard ? `You chose ${heard}. Goodbye.` : 'No key was pressed. Goodbye.',
];

/** A number ending in 345 reaches a phone menu (the local callee directory). */
export const simulatedMenu = (number: string): boolean => number.endsWith('345');

/**
 * A number ending in 344 reaches a caller who says hello and then waits, silent
 * (WAITING_CALLER_SCRIPT); 341 a caller who asks for a person (an agent that transfers hands them
 * on); 342 and 343 callers of a flow (FLOW_CARD_CALLER_SCRIPT, who talks over the agent, and
 * FLOW_LOAN_CALLER_SCRIPT); one whose 4th and 3rd last digits are 35 (…3521) a caller who asks
 * for a text (the last two digits then decide the text's fate: simulatedTextFate).
 */
export function simulatedScript(number: string): readonly CallerLine[] | undefined {
  if (number.endsWith('344')) return WAITING_CALLER_SCRIPT;
  if (number.endsWith('341')) return TRANSFER_CALLER_SCRIPT;
  if (number.endsWith('342')) return FLOW_CARD_CALLER_SCRIPT;
  if (number.endsWith('343')) return FLOW_LOAN_CALLER_SCRIPT;
  if (number.slice(-4, -2) === '35') return TEXTING_CALLER_SCRIPT;
  return undefined;
}

/**
 * A transfer's destination, by the same directory as a dialed number (simulatedOutcome): a person
 * who answers, listens to what is said first (a warm transfer's message), talks with the caller for
 * this long and hangs up.
 */
export const TRANSFER_TALK_MS = 2_000;

/**
 * The keys a callee presses as its first answer, by the local callee directory: a number ending in
 * 346 enters `1234#` (an account number, as an agent with a `keypad` setting asks for); others speak.
 */
export const simulatedKeys = (number: string): string | undefined => (number.endsWith('346') ? '1234#' : undefined);

/**
 * How long a callee stays on a call that has gone silent (its media stream closed, the call still
 * up, as Telnyx keeps it) before hanging up: a person says "hello?" a few times, then gives up.
 */
export const DEAD_AIR_PATIENCE_MS = 10_000;

/** The providers' text-to-speech pace (Twilio `<Say>`, Telnyx `speak`): about 15 characters a second. */
export const TTS_MS_PER_CHARACTER = 65;

const GREETING = "Hi, you've reached Anna. I can't take your call right now, please leave a message";
const BEEP_MS = 500;

/** A machine's greeting: words (for about 4 s, silence padding them), then a 1 kHz beep when it has one. */
export function answeringMachine(beep: boolean): AnsweringMachine {
  const words = frames(synthesizeSpeech(GREETING));
  const padding = Math.max(0, Math.round(4_000 / FRAME_MS) - words.length);
  const greeting = [...words, ...Array.from({ length: padding }, () => new Int16Array(FRAME_SAMPLES))];
  const tone = frames(
    Int16Array.from({ length: (BEEP_MS / 1000) * 8000 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)),
    ),
  );
  const all = beep ? [...greeting, ...tone] : greeting;
  return { frames: all, greetingMs: all.length * FRAME_MS, beep };
}

/**
 * What becomes of a text message sent to a number, by the local callee directory (its last two
 * digits, so a test can pick a number in any zone and keep its last digit's call outcome): `…22`
 * is a landline, which cannot take a text (the provider reports the delivery failed: Twilio
 * 30006, Telnyx 40001); `…23`'s delivery receipt comes late (LATE_RECEIPT_MS); `…24`'s never comes
 * (the message stays `sent`, as with a handset switched off whose network sends no receipt);
 * anything else is delivered at once.
 */
export type SimulatedTextFate = 'delivered' | 'late_receipt' | 'no_receipt' | 'landline';

export function simulatedTextFate(number: string): SimulatedTextFate {
  if (number.endsWith('22')) return 'landline';
  if (number.endsWith('23')) return 'late_receipt';
  if (number.endsWith('24')) return 'no_receipt';
  return 'delivered';
}

/** How long a late delivery receipt takes, and how long a message takes to be handed to the network and delivered. */
export const TEXT_TIMING_MS = { sent: 150, delivered: 400, lateReceipt: 4_000 } as const;
