import { ScriptedLanguageModel, ScriptedSpeechToText, ToneTextToSpeech } from '../media/src/agent/scripted.ts';
import { MEDIA_STREAM_PATH, startMediaService } from '../media/src/service.ts';
import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The media service in this process, with the deterministic scripted speech and agent: the same
 * stream handling, recording and completion code as the Fargate task.
 */
export async function startLocalMediaService(): Promise<{ streamUrl: string; stop: () => Promise<void> }> {
  const logger = new Logger({ serviceName: 'media' });
  const media = await startMediaService({
    port: 0,
    host: '127.0.0.1',
    providers: { stt: new ScriptedSpeechToText(), llm: new ScriptedLanguageModel(), tts: new ToneTextToSpeech() },
    log: (level, message, details) => logger[level](message, { ...details }),
  });
  return { streamUrl: `ws://127.0.0.1:${media.port}${MEDIA_STREAM_PATH}`, stop: media.close };
}
