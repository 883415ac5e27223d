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
import { platformProviders } from './agent/providers.ts';
import type { LogFn } from './call/call-types.ts';
import { mediaTelemetrySettings, type MediaTelemetrySettings } from '../../shared/config/media-telemetry.ts';
import { ACTIVE_CALLS_METRIC } from './deployment.ts';
import { startMediaService, type MediaService } from './service.ts';
import { startMediaTelemetry } from './telemetry/media-telemetry.ts';

const logger = new Logger({ serviceName: 'media' });

/** Seconds a stopping task lets calls run on; the stack sets it below the container's stop timeout. */
function drainSeconds(): number {
  const raw = process.env.DRAIN_SECONDS ?? '110';
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new Error(`DRAIN_SECONDS must be a number of seconds >= 0, got '${raw}'`);
  return seconds;
}

/** The most calls a task holds (the stack sets it from context mediaMaxCallsPerTask). */
function maxCalls(): number {
  const raw = process.env.MEDIA_MAX_CALLS ?? '';
  const calls = Number(raw);
  if (!Number.isInteger(calls) || calls < 1)
    throw new Error(`MEDIA_MAX_CALLS must be a whole number >= 1, got '${raw}'`);
  return calls;
}

/** Whether dialed calls are made ready while they ring (the stack sets it from context mediaEarlyConnections). */
function earlyConnections(): boolean {
  const raw = process.env.MEDIA_EARLY_CONNECTIONS ?? '';
  if (raw !== 'on' && raw !== 'off') throw new Error(`MEDIA_EARLY_CONNECTIONS must be on or off, got '${raw}'`);
  return raw === 'on';
}

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
let drainMs: number;
let callLimit: number;
let telemetrySettings: MediaTelemetrySettings;
let early: boolean;
try {
  providers = platformProviders(process.env);
  drainMs = drainSeconds() * 1000;
  callLimit = maxCalls();
  telemetrySettings = mediaTelemetrySettings(process.env);
  early = earlyConnections();
} catch (error) {
  logger.critical((error as Error).message);
  process.exit(1);
}

const log: LogFn = (level, message, details) => logger[level](message, { ...details });
// Each voice call's turn latency, as metrics per agent and spans to X-Ray, when it ends.
const telemetry = startMediaTelemetry(telemetrySettings, log);

let service: MediaService;
try {
  service = await startMediaService({
    port: Number(process.env.PORT ?? 8080),
    calls: { providers, settings: process.env },
    maxCalls: callLimit,
    earlyConnections: early,
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
    logger.info('Draining', { signal, activeCalls: service.activeCalls, drainSeconds: drainMs / 1000 });
    void service
      .drain(drainMs)
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
