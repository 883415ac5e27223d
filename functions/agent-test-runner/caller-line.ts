import { platformProviders, type PlatformProviders } from '../../media/src/agent/providers.ts';
import { positiveNumberSetting } from '../../shared/config/settings.ts';
import type { CallerLine } from '../../shared/services/test-voice-conversation.ts';

let providers: PlatformProviders | undefined;

/**
 * The simulated caller's side of a voice test: the platform's text-to-speech (its voice) and
 * speech-to-text (its ears), the same clients and settings as the media service's (the keys read
 * from the VoiceProviders secret when a case needs them), in the case's language; the line at
 * real time (TEST_LINE_PACE: the local stack's tests only). The function gives it to the runner
 * (runAttempt's `callerLine`): shared/ imports nothing of the media service.
 */
export async function callerLine(language: string): Promise<CallerLine> {
  providers ??= platformProviders(process.env);
  const [stt, tts] = await Promise.all([providers.stt(), providers.tts()]);
  return { stt, tts, language, pace: positiveNumberSetting('TEST_LINE_PACE', 1) };
}
