import { describe, expect, it } from 'vitest';
import { callCost } from '../../shared/domain/call-outcome.ts';
import { addResponseUsage, NO_USAGE, speechToSpeechUsd } from '../../shared/domain/speech-to-speech-cost.ts';

describe('the realtime engine priced by its tokens', () => {
  it.each([
    { name: 'nothing used', usage: NO_USAGE, usd: 0 },
    // A minute of the caller (about 600 audio tokens) and 30 s of the agent (about 600).
    { name: 'audio both ways', usage: { ...NO_USAGE, inputAudioTokens: 600, outputAudioTokens: 600 }, usd: 0.0576 },
    { name: 'text both ways', usage: { ...NO_USAGE, inputTextTokens: 10_000, outputTextTokens: 1_000 }, usd: 0.056 },
    {
      name: 'cached instructions are billed at the cached price',
      usage: { ...NO_USAGE, inputTextTokens: 10_000, cachedTextTokens: 10_000 },
      usd: 0.004,
    },
    {
      name: 'cached audio too',
      usage: {
        ...NO_USAGE,
        inputTextTokens: 1_000,
        inputAudioTokens: 1_000,
        cachedAudioTokens: 500,
        cachedTextTokens: 1_000,
      },
      usd: 0.0166,
    },
  ])('$name', ({ usage, usd }) => {
    expect(speechToSpeechUsd(usage)).toBe(usd);
  });

  it("is a part of the call's cost, only for such a call", () => {
    expect(callCost(61, true, { speechToSpeechUsd: 0.0576 })).toEqual({
      currency: 'USD',
      telephony_usd: 0.028,
      platform_usd: 0.1,
      speech_to_speech_usd: 0.0576,
      total_usd: 0.1856,
    });
    expect(callCost(61)).not.toHaveProperty('speech_to_speech_usd');
  });
});

describe("a response's usage (response.done) added to the call's", () => {
  const before = { ...NO_USAGE, inputTextTokens: 1, inputAudioTokens: 2, outputTextTokens: 3, outputAudioTokens: 4 };
  it.each([
    {
      name: 'text and audio both ways',
      usage: {
        input_token_details: { text_tokens: 100, audio_tokens: 50, cached_tokens: 0 },
        output_token_details: { text_tokens: 20, audio_tokens: 40 },
      },
      added: { inputTextTokens: 100, inputAudioTokens: 50, outputTextTokens: 20, outputAudioTokens: 40 },
    },
    {
      name: 'cached tokens split as the details say',
      usage: {
        input_token_details: {
          text_tokens: 1_200,
          audio_tokens: 300,
          cached_tokens: 1_152,
          cached_tokens_details: { text_tokens: 1_024, audio_tokens: 128 },
        },
      },
      added: { inputTextTokens: 1_200, inputAudioTokens: 300, cachedTextTokens: 1_024, cachedAudioTokens: 128 },
    },
    {
      name: 'cached tokens without details: off the text first',
      usage: { input_token_details: { text_tokens: 1_200, audio_tokens: 300, cached_tokens: 1_152 } },
      added: { inputTextTokens: 1_200, inputAudioTokens: 300, cachedTextTokens: 1_152 },
    },
    {
      name: 'cached tokens without details beyond the text: the rest off the audio',
      usage: { input_token_details: { text_tokens: 1_000, audio_tokens: 300, cached_tokens: 1_152 } },
      added: { inputTextTokens: 1_000, inputAudioTokens: 300, cachedTextTokens: 1_000, cachedAudioTokens: 152 },
    },
    { name: 'no details at all (a failed response)', usage: {}, added: {} },
  ])('$name', ({ usage, added }) => {
    const expected = { ...NO_USAGE, ...added };
    expect(addResponseUsage(before, usage)).toEqual({
      inputTextTokens: 1 + expected.inputTextTokens,
      inputAudioTokens: 2 + expected.inputAudioTokens,
      cachedTextTokens: expected.cachedTextTokens,
      cachedAudioTokens: expected.cachedAudioTokens,
      outputTextTokens: 3 + expected.outputTextTokens,
      outputAudioTokens: 4 + expected.outputAudioTokens,
    });
  });
});
