import { describe, expect, it } from 'vitest';
import { callCost } from '../../shared/domain/call-outcome.ts';
import { NO_USAGE, speechToSpeechUsd } from '../../shared/domain/speech-to-speech-cost.ts';

describe('the realtime engine priced by its tokens', () => {
  it.each([
    { name: 'nothing used', usage: NO_USAGE, usd: 0 },
    // A minute of the caller (about 600 audio tokens) and 30 s of the agent (about 600).
    { name: 'audio both ways', usage: { ...NO_USAGE, inputAudioTokens: 600, outputAudioTokens: 600 }, usd: 0.0576 },
    { name: 'text both ways', usage: { ...NO_USAGE, inputTextTokens: 10_000, outputTextTokens: 1_000 }, usd: 0.056 },
    {
      name: 'cached instructions are billed at the cached price, text first',
      usage: { ...NO_USAGE, inputTextTokens: 10_000, cachedTokens: 10_000 },
      usd: 0.004,
    },
    {
      name: 'cache beyond the text comes off the audio',
      usage: { ...NO_USAGE, inputTextTokens: 1_000, inputAudioTokens: 1_000, cachedTokens: 1_500 },
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
