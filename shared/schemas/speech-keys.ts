import * as z from 'zod';
import { pageOf } from './pagination.ts';
import { SPEECH_PROVIDERS } from '../domain/speech-providers.ts';
import { Timestamp } from './common.ts';
import { guardedUrl } from './outbound-url.ts';

export const SpeechProviderParam = z.object({
  provider: z
    .enum(SPEECH_PROVIDERS)
    .openapi({ description: '`deepgram` (speech to text), `elevenlabs` or `openai` (text to speech).' }),
});

export const SpeechKeyRequest = z
  .object({
    api_key: z.string().min(8).max(500),
    api_url: guardedUrl(
      'For `openai` only: an OpenAI-compatible speech API base URL (default `https://api.openai.com/v1`).',
      '30 s and 8 MiB of audio per utterance',
      500,
    ).optional(),
  })
  .openapi('SpeechKeyRequest');

export const SpeechKeyStatus = z
  .object({
    provider: z.enum(SPEECH_PROVIDERS),
    api_url: z.string().max(500).nullable(),
    key_last4: z.string().max(4),
    updated_at: Timestamp,
  })
  .openapi('SpeechKeyStatus', { description: 'The key itself is stored encrypted and never returned.' });

export const SpeechKeyList = pageOf(SpeechKeyStatus, 'SpeechKeyList').openapi({
  description:
    "The organization's own speech provider keys. Calls use them instead of the platform's: a Deepgram key for speech to text; an ElevenLabs (preferred) or OpenAI key for text to speech.",
});
