/**
 * What the simulated callee says, one line per agent turn (the local telephony simulator speaks
 * it as the synthetic speech of audio/tones.ts; the local speech-to-text fake hears it exactly).
 * The lines exercise the agent's knowledge base (opening hours), an HTTP tool whose name contains
 * "availability", and the goodbye that makes the model choose a disposition and end the call.
 */
/**
 * A line of a caller's script: words said once the agent has stopped, or (`overAgent`) said while
 * the agent is still talking, BARGE_IN_AFTER_MS into its turn; `''` says nothing.
 */
export type CallerLine = string | { overAgent: string };

/** How far into the agent's turn a caller who talks over it starts. */
export const BARGE_IN_AFTER_MS = 400;

export const DEFAULT_CALLER_SCRIPT: readonly CallerLine[] = [
  'Hello, who is this?',
  'What are your opening hours?',
  'Please check availability for tomorrow.',
  'Thank you, goodbye.',
];

/** A caller who asks for a person (the local callee directory: a number ending in 341), then waits. */
export const TRANSFER_CALLER_SCRIPT: readonly CallerLine[] = ['Hello, who is this?', 'Can I talk to a person, please?'];

/**
 * A caller who says hello, then nothing more, and stays on the line until the agent's silence
 * prompt and goodbye end the call (the local callee directory: a number ending in 344).
 */
export const WAITING_CALLER_SCRIPT: readonly CallerLine[] = ['Hello, who is this?', ''];

/** A caller who asks for a text (the local callee directory: a number whose 4th and 3rd last digits are 35). */
export const TEXTING_CALLER_SCRIPT: readonly CallerLine[] = [
  'Hello, who is this?',
  'Can you text me the details, please?',
  'Thank you, goodbye.',
];

/**
 * Callers of a conversation flow that asks their age and offers a card or a loan after a disclosure
 * (docs/flows.md's example; the local callee directory: numbers ending in 342 and 343). The first
 * talks over the disclosure to ask for the card; the second waits, then asks for a loan. Then both
 * say nothing more.
 */
export const FLOW_CARD_CALLER_SCRIPT: readonly CallerLine[] = [
  'I am 42 years old',
  { overAgent: 'The card, please' },
  '',
];
export const FLOW_LOAN_CALLER_SCRIPT: readonly CallerLine[] = ['I am 30', 'A loan would be great', ''];
