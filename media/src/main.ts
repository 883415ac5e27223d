/**
 * Entry point of the media service container (Fargate). Listens on PORT for the provider's Media
 * Streams WebSocket (`/media`) and the load balancer's `/healthz`; publishes its active calls for
 * scaling; drains on SIGTERM (ECS sends it before stopping a task): new streams are refused, calls
 * in progress get up to DRAIN_SECONDS to end, then what is left is closed and saved.
 *
 * The providers come from the task's settings and, when a call needs them, the keys of the
 * VoiceProviders secret (agent/providers.ts): the task starts and is healthy before the operator
 * fills the keys in (the first deploy), and a call that needs a missing key fails naming it. A
 * setting fixed at deploy that is missing stops the task, named: there is no fallback to a fake.
 * Each voice call's turn latency leaves as metrics and spans when it ends (telemetry/); a stopping
 * task sends the spans still queued before it exits.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { loadElevenLabs, platformProviders } from './agent/providers.ts';
import type { LogFn } from './call/call-types.ts';
import { mediaTaskSettings, type MediaTaskSettings } from '../../shared/config/media-task.ts';
import { mediaTelemetrySettings, type MediaTelemetrySettings } from '../../shared/config/media-telemetry.ts';
import { ACTIVE_CALLS_METRIC } from './deployment.ts';
import { startMediaService, type MediaService } from './service.ts';
import { startMediaTelemetry } from './telemetry/media-telemetry.ts';

const logger = new Logger({ serviceName: 'media' });

/**
 * The task's private IP, where the other tasks reach it to pass on a listener or a control command
 * (live-call-server.ts): from the task metadata endpoint ECS gives every Fargate task.
 */
async function taskPrivateIp(): Promise<string> {
  const endpoint = process.env.ECS_CONTAINER_METADATA_URI_V4;
  if (!endpoint)
    throw new Error(
      'ECS_CONTAINER_METADATA_URI_V4 is unset: the media service runs as an ECS task, whose metadata gives its private IP',
    );
  const task = (await (await fetch(`${endpoint}/task`, { signal: AbortSignal.timeout(5_000) })).json()) as {
    Containers?: { Networks?: { IPv4Addresses?: string[] }[] }[];
  };
  const ip = task.Containers?.flatMap((container) => container.Networks ?? []).flatMap(
    (network) => network.IPv4Addresses ?? [],
  )[0];
  if (!ip) throw new Error('The task metadata names no IPv4 address of the task');
  return ip;
}

let providers;
let task: MediaTaskSettings;
let telemetrySettings: MediaTelemetrySettings;
try {
  providers = platformProviders(process.env);
  telemetrySettings = mediaTelemetrySettings(process.env);
  task = mediaTaskSettings(process.env);
} catch (error) {
  logger.critical((error as Error).message);
  process.exit(1);
}

const log: LogFn = (level, message, details) => logger[level](message, { ...details });
// Each voice call's turn latency, as metrics per agent and spans to X-Ray, when it ends.
const telemetry = startMediaTelemetry(telemetrySettings, log);

// Any call may speak through ElevenLabs (the platform's voice or an organization's key): its SDK
// is loaded before the first call, not during one.
await loadElevenLabs();

let service: MediaService;
try {
  service = await startMediaService({
    port: task.port,
    calls: { providers, settings: process.env },
    maxCalls: task.maxCalls,
    earlyConnections: task.earlyConnections,
    advertisedHost: await taskPrivateIp(),
    log,
    telemetry: telemetry.sink,
  });
} catch (error) {
  // No stream credential key (MEDIA_STREAM_SECRET_ARN unset, the secret unreadable), no task
  // address: refuse to start, saying why.
  logger.critical((error as Error).message);
  process.exit(1);
}
logger.info('Media service listening', {
  port: service.port,
  ttsProvider: providers.ttsProvider,
});

const metrics = new Metrics({ namespace: ACTIVE_CALLS_METRIC.namespace, serviceName: ACTIVE_CALLS_METRIC.serviceName });
const publishActiveCalls = () => {
  metrics.addMetric(ACTIVE_CALLS_METRIC.name, MetricUnit.Count, service.activeCalls);
  metrics.publishStoredMetrics();
};
const publisher = setInterval(publishActiveCalls, ACTIVE_CALLS_METRIC.publishEverySeconds * 1000);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('Draining', { signal, activeCalls: service.activeCalls, drainSeconds: task.drainSeconds });
    void service
      .drain(task.drainSeconds * 1000)
      .then(() => telemetry.shutdown())
      .then(
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
