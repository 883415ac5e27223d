/**
 * The task's turn telemetry, made from its settings (shared/config/media-telemetry.ts): the
 * metrics always (Powertools, EMF on stdout; off where POWERTOOLS_METRICS_DISABLED says so, as in
 * the local stack), the spans when OTEL_TRACES_EXPORTER is `otlp`: batched and sent over OTLP/HTTP
 * to the AWS Distro for OpenTelemetry collector beside the task, which hands them to X-Ray.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { MediaTelemetrySettings } from '../../../shared/config/media-telemetry.ts';
import type { LogFn } from '../call/call-types.ts';
import { ACTIVE_CALLS_METRIC } from '../deployment.ts';
import { LatencyMetrics } from './latency-metrics.ts';
import { LatencySpans } from './latency-spans.ts';
import { everySink, type TurnTelemetry } from './turn-telemetry.ts';

/** The service's name on its metrics (the `service` dimension) and its spans (`service.name`, X-Ray's segment name). */
export const MEDIA_SERVICE_NAME = ACTIVE_CALLS_METRIC.serviceName;

/**
 * Spans waiting to be sent: dozens of calls' worth (a call of 20 turns makes about 130; the
 * batch processor sends a full batch of 512 at once, and otherwise every 5 s). Past it spans
 * are dropped, never the call's time. At most 16 batches, under the exporter's 30 concurrent
 * sends, so a stopping task's final flush sends them all.
 */
const MAX_QUEUED_SPANS = 8_192;

export interface MediaTelemetry {
  sink: TurnTelemetry;
  /** Sends the spans still queued (a stopping task calls it last). */
  shutdown(): Promise<void>;
}

export function startMediaTelemetry(settings: MediaTelemetrySettings, log: LogFn): MediaTelemetry {
  const sinks: TurnTelemetry[] = [
    new LatencyMetrics(new Metrics({ namespace: settings.metricsNamespace, serviceName: MEDIA_SERVICE_NAME })),
  ];
  if (settings.traces.exporter === 'none') return { sink: everySink(sinks, log), shutdown: async () => {} };

  // The SDK reports a collector it cannot reach through its diagnostics: into the task's log.
  diag.setLogger(
    {
      error: (message) => log('error', `OpenTelemetry: ${message}`),
      warn: (message) => log('warn', `OpenTelemetry: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': MEDIA_SERVICE_NAME }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.traces.endpoint }),
        maxQueueSize: MAX_QUEUED_SPANS,
      }),
    ],
  });
  sinks.push(new LatencySpans(provider.getTracer('voice-agent-media')));
  return { sink: everySink(sinks, log), shutdown: () => provider.shutdown() };
}
