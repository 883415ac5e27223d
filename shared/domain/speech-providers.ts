/** The speech providers an organization may bring its own key for. */
export const SPEECH_PROVIDERS = ['deepgram', 'elevenlabs', 'openai'] as const;
export type SpeechProvider = (typeof SPEECH_PROVIDERS)[number];
