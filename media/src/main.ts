/**
 * Entry point of the media service container (Fargate). Listens on PORT for the provider's Media
 * Streams WebSocket (`/media`) and the load balancer's `/healthz`; stops cleanly on SIGTERM (ECS
 * sends it before stopping a task), letting calls in progress save what they have.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { ScriptedLanguageModel, ScriptedSpeechToText, ToneTextToSpeech } from './agent/scripted.ts';
import type { CallProviders } from './call-sessions.ts';
import { startMediaService } from './service.ts';

const logger = new Logger({ serviceName: 'media' });

/**
 * Speech and model providers by MEDIA_PROVIDERS. `scripted` (deterministic tones and the scripted
 * agent) is the only implementation shipped; real speech-to-text, model and text-to-speech
 * clients plug in here behind the interfaces of agent/interfaces.ts.
 */
function providers(): CallProviders {
  const kind = process.env.MEDIA_PROVIDERS ?? 'scripted';
  if (kind !== 'scripted') throw new Error(`Unknown MEDIA_PROVIDERS '${kind}': only 'scripted' is available`);
  return { stt: new ScriptedSpeechToText(), llm: new ScriptedLanguageModel(), tts: new ToneTextToSpeech() };
}

const service = await startMediaService({
  port: Number(process.env.PORT ?? 8080),
  providers: providers(),
  log: (level, message, details) => logger[level](message, { ...details }),
});
logger.info('Media service listening', { port: service.port });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('Stopping', { signal });
    void service.close().then(() => process.exit(0));
  });
}
