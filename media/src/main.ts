/**
 * Entry point of the media service container (Fargate). Listens on PORT for the provider's Media
 * Streams WebSocket (`/media`) and the load balancer's `/healthz`; publishes its active calls for
 * scaling; drains on SIGTERM (ECS sends it before stopping a task): new streams are refused, calls
 * in progress get up to DRAIN_SECONDS to end, then what is left is closed and saved.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ScriptedLanguageModel, ScriptedSpeechToText, ToneTextToSpeech } from './agent/scripted.ts';
import type { CallProviders } from './call-sessions.ts';
import { ACTIVE_CALLS_METRIC } from './deployment.ts';
import { startMediaService } from './service.ts';

const logger = new Logger({ serviceName: 'media' });

/** Seconds a stopping task lets calls run on; the stack sets it below the container's stop timeout. */
function drainSeconds(): number {
  const raw = process.env.DRAIN_SECONDS ?? '110';
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`DRAIN_SECONDS must be a number of seconds >= 0, got '${raw}'`);
  return seconds;
}
const drainMs = drainSeconds() * 1000;

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

const metrics = new Metrics({ namespace: ACTIVE_CALLS_METRIC.namespace, serviceName: ACTIVE_CALLS_METRIC.serviceName });
const publishActiveCalls = () => {
  metrics.addMetric(ACTIVE_CALLS_METRIC.name, MetricUnit.Count, service.activeCalls);
  metrics.publishStoredMetrics();
};
const publisher = setInterval(publishActiveCalls, ACTIVE_CALLS_METRIC.publishEverySeconds * 1000);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('Draining', { signal, activeCalls: service.activeCalls, drainSeconds: drainMs / 1000 });
    void service.drain(drainMs).then(
      () => {
        clearInterval(publisher);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('Drain failed', { error: String(error) });
        process.exit(1);
      },
    );
  });
}
