import { describe, expect, it } from 'vitest';
import { mediaTelemetrySettings, type MediaTelemetrySettings } from '../../shared/config/media-telemetry.ts';

const NAMESPACE = { POWERTOOLS_METRICS_NAMESPACE: 'VoiceAgentPlatform/Media' };

describe("the media task's telemetry settings", () => {
  it.each<{ name: string; env: NodeJS.ProcessEnv; settings: MediaTelemetrySettings }>([
    {
      name: 'the stack: spans over OTLP to the collector beside the task',
      env: {
        ...NAMESPACE,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
      },
      settings: {
        metricsNamespace: 'VoiceAgentPlatform/Media',
        traces: { exporter: 'otlp', endpoint: 'http://127.0.0.1:4318/v1/traces' },
      },
    },
    {
      name: 'the local stack: no spans, and no endpoint needed',
      env: { ...NAMESPACE, OTEL_TRACES_EXPORTER: 'none' },
      settings: { metricsNamespace: 'VoiceAgentPlatform/Media', traces: { exporter: 'none' } },
    },
  ])('$name', ({ env, settings }) => {
    expect(mediaTelemetrySettings(env)).toEqual(settings);
  });

  it.each<{ name: string; env: NodeJS.ProcessEnv; error: RegExp }>([
    {
      name: 'no namespace',
      env: { OTEL_TRACES_EXPORTER: 'none' },
      error: /^Setting POWERTOOLS_METRICS_NAMESPACE is not configured: CloudWatch namespace/,
    },
    {
      name: 'no exporter chosen (never a silent default)',
      env: { ...NAMESPACE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' },
      error: /^Setting OTEL_TRACES_EXPORTER is not configured/,
    },
    {
      name: 'an exporter the task does not have',
      env: { ...NAMESPACE, OTEL_TRACES_EXPORTER: 'console' },
      error: /^Setting OTEL_TRACES_EXPORTER must be one of otlp, none, not 'console'/,
    },
    {
      name: 'otlp without the collector',
      env: { ...NAMESPACE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ' ' },
      error: /^Setting OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not configured/,
    },
    {
      name: 'otlp to something that is not a URL',
      env: { ...NAMESPACE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '127.0.0.1:4318' },
      error: /^Setting OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL, not '127.0.0.1:4318'/,
    },
  ])('fails naming the setting: $name', ({ env, error }) => {
    expect(() => mediaTelemetrySettings(env)).toThrow(error);
  });
});
