/**
 * What a call of the `realtime` engine spends on its speech-to-speech model: the tokens of every
 * response (`response.done`'s usage), audio and text priced apart. Pure.
 */

/** A call's tokens, added up over its responses. */
export interface SpeechToSpeechUsage {
  inputTextTokens: number;
  inputAudioTokens: number;
  /** Input tokens served from the prompt cache (part of the two above, billed at the cached price). */
  cachedTokens: number;
  outputTextTokens: number;
  outputAudioTokens: number;
}

/** OpenAI's list prices of `gpt-realtime` (USD per million tokens). */
export const SPEECH_TO_SPEECH_USD_PER_MILLION = {
  inputAudio: 32,
  inputText: 4,
  cachedInput: 0.4,
  outputAudio: 64,
  outputText: 16,
} as const;

export const NO_USAGE: SpeechToSpeechUsage = {
  inputTextTokens: 0,
  inputAudioTokens: 0,
  cachedTokens: 0,
  outputTextTokens: 0,
  outputAudioTokens: 0,
};

/**
 * The usage's price (USD, to 1/10,000). Cached tokens are taken off the text input first (the
 * instructions and tools are what a session's prompt cache holds), then off the audio.
 */
export function speechToSpeechUsd(usage: SpeechToSpeechUsage): number {
  const price = SPEECH_TO_SPEECH_USD_PER_MILLION;
  const cachedText = Math.min(usage.cachedTokens, usage.inputTextTokens);
  const cachedAudio = Math.min(usage.cachedTokens - cachedText, usage.inputAudioTokens);
  const usd =
    (usage.inputTextTokens - cachedText) * price.inputText +
    (usage.inputAudioTokens - cachedAudio) * price.inputAudio +
    (cachedText + cachedAudio) * price.cachedInput +
    usage.outputTextTokens * price.outputText +
    usage.outputAudioTokens * price.outputAudio;
  return Math.round(usd / 100) / 10_000;
}
