/**
 * Entry point of the media service container (Fargate). Listens on PORT for the provider's Media
 * Streams WebSocket (`/media`) and the load balancer's `/healthz`; stops cleanly on SIGTERM (ECS
 * sends it before stopping a task), letting calls in progress save what they have.
 *
 * The providers come from the task's secrets and settings (agent/providers.ts); without them the
 * task refuses to start, naming what is missing: there is no fallback to a fake on AWS.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { providersFromEnvironment } from './agent/providers.ts';
import { startMediaService } from './service.ts';

const logger = new Logger({ serviceName: 'media' });

let providers;
try {
  providers = providersFromEnvironment();
} catch (error) {
  logger.critical((error as Error).message);
  process.exit(1);
}

const service = await startMediaService({
  port: Number(process.env.PORT ?? 8080),
  // Tool and organization-model requests use the global fetch until the SSRF-guarded one is wired in.
  calls: { providers, settings: process.env },
  log: (level, message, details) => logger[level](message, { ...details }),
});
logger.info('Media service listening', { port: service.port, stt: providers.stt.name, llm: providers.llm.name, tts: providers.tts.name });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('Stopping', { signal });
    void service.close().then(() => process.exit(0));
  });
}
