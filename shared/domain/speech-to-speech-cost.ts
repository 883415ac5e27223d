/**
 * What a call of the `realtime` engine spends on its speech-to-speech model: the tokens of every
 * response (`response.done`'s usage), audio and text priced apart. Pure.
 */

/** A call's tokens, added up over its responses. */
export interface SpeechToSpeechUsage {
  /** Input tokens, cached ones included (the API counts cached tokens within the input). */
  inputTextTokens: number;
  inputAudioTokens: number;
  /** Of the input, the tokens served from the prompt cache (billed at the cached price). */
  cachedTextTokens: number;
  cachedAudioTokens: number;
  outputTextTokens: number;
  outputAudioTokens: number;
}

/** A response's usage as `response.done` reports it (the `openai` package's `RealtimeResponseUsage`). */
export interface RealtimeResponseUsage {
  input_token_details?: {
    text_tokens?: number;
    audio_tokens?: number;
    cached_tokens?: number;
    cached_tokens_details?: { text_tokens?: number; audio_tokens?: number };
  };
  output_token_details?: { text_tokens?: number; audio_tokens?: number };
}

/** OpenAI's list prices of `gpt-realtime` (USD per million tokens); cached input, text or audio, is 0.40. */
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
  cachedTextTokens: 0,
  cachedAudioTokens: 0,
  outputTextTokens: 0,
  outputAudioTokens: 0,
};

/**
 * `total` with one response's usage added. The cached tokens are split by the usage's
 * `cached_tokens_details`; a usage without them has its cached tokens taken off the text input
 * first (the instructions and tools begin the prompt the cache holds), then off the audio.
 */
export function addResponseUsage(total: SpeechToSpeechUsage, usage: RealtimeResponseUsage): SpeechToSpeechUsage {
  const input = usage.input_token_details ?? {};
  const text = input.text_tokens ?? 0;
  const audio = input.audio_tokens ?? 0;
  const details = input.cached_tokens_details;
  const cachedText = Math.min(text, details ? (details.text_tokens ?? 0) : (input.cached_tokens ?? 0));
  const cachedAudio = Math.min(
    audio,
    details ? (details.audio_tokens ?? 0) : Math.max(0, (input.cached_tokens ?? 0) - cachedText),
  );
  return {
    inputTextTokens: total.inputTextTokens + text,
    inputAudioTokens: total.inputAudioTokens + audio,
    cachedTextTokens: total.cachedTextTokens + cachedText,
    cachedAudioTokens: total.cachedAudioTokens + cachedAudio,
    outputTextTokens: total.outputTextTokens + (usage.output_token_details?.text_tokens ?? 0),
    outputAudioTokens: total.outputAudioTokens + (usage.output_token_details?.audio_tokens ?? 0),
  };
}

/** The usage's price (USD, to 1/10,000). */
export function speechToSpeechUsd(usage: SpeechToSpeechUsage): number {
  const price = SPEECH_TO_SPEECH_USD_PER_MILLION;
  const usd =
    (usage.inputTextTokens - usage.cachedTextTokens) * price.inputText +
    (usage.inputAudioTokens - usage.cachedAudioTokens) * price.inputAudio +
    (usage.cachedTextTokens + usage.cachedAudioTokens) * price.cachedInput +
    usage.outputTextTokens * price.outputText +
    usage.outputAudioTokens * price.outputAudio;
  return Math.round(usd / 100) / 10_000;
}
