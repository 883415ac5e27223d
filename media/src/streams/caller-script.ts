/**
 * What the simulated callee says, one line per agent turn (the local telephony simulator speaks
 * it as the synthetic speech of audio/tones.ts; the local speech-to-text fake hears it exactly).
 * The lines exercise the agent's knowledge base (opening hours), an HTTP tool whose name contains
 * "availability", and the goodbye that makes the model choose a disposition and end the call.
 */
export const DEFAULT_CALLER_SCRIPT: readonly string[] = [
  'Hello, who is this?',
  'What are your opening hours?',
  'Please check availability for tomorrow.',
  'Thank you, goodbye.',
];

/** A caller who asks for a person (the local callee directory: a number ending in 341), then waits. */
export const TRANSFER_CALLER_SCRIPT: readonly string[] = ['Hello, who is this?', 'Can I talk to a person, please?'];

/** A caller who asks for a text (the local callee directory: a number whose 4th and 3rd last digits are 35). */
export const TEXTING_CALLER_SCRIPT: readonly string[] = [
  'Hello, who is this?',
  'Can you text me the details, please?',
  'Thank you, goodbye.',
];
