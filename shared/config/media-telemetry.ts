/**
 * The media task's telemetry settings: where each turn's latency goes as it leaves the task
 * (media/src/telemetry/). The stack sets every one on the task (infra/constructs/media-telemetry.ts,
 * tested in test/infra/media.test.ts); the local stack and the tests give them explicitly. A
 * missing or unknown one stops the task, named: there is no default that would silently send
 * spans nowhere.
 */
export const MEDIA_TELEMETRY_SETTINGS = {
  POWERTOOLS_METRICS_NAMESPACE:
    'CloudWatch namespace of the per-turn latency metrics (the stack: VoiceAgentPlatform/Media)',
  OTEL_TRACES_EXPORTER:
    '`otlp`: spans to the AWS Distro for OpenTelemetry collector beside the task (the stack); `none`: no spans (the local stack)',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    "OTLP/HTTP traces URL of the collector (the stack: the sidecar's http://127.0.0.1:4318/v1/traces); read when OTEL_TRACES_EXPORTER is otlp",
} as const;

export type MediaTelemetrySettingName = keyof typeof MEDIA_TELEMETRY_SETTINGS;

export const TRACES_EXPORTERS = ['otlp', 'none'] as const;

export interface MediaTelemetrySettings {
  metricsNamespace: string;
  traces: { exporter: 'otlp'; endpoint: string } | { exporter: 'none' };
}

export class MissingTelemetrySettingError extends Error {
  override readonly name = 'MissingTelemetrySettingError';
  constructor(
    readonly setting: MediaTelemetrySettingName,
    problem = 'is not configured',
  ) {
    super(`Setting ${setting} ${problem}: ${MEDIA_TELEMETRY_SETTINGS[setting]}`);
  }
}

/** The telemetry settings in `env`; a missing or invalid one throws, naming it. */
export function mediaTelemetrySettings(env: NodeJS.ProcessEnv): MediaTelemetrySettings {
  const read = (name: MediaTelemetrySettingName) => {
    const value = env[name]?.trim();
    if (!value) throw new MissingTelemetrySettingError(name);
    return value;
  };
  const metricsNamespace = read('POWERTOOLS_METRICS_NAMESPACE');
  const exporter = read('OTEL_TRACES_EXPORTER');
  if (exporter === 'none') return { metricsNamespace, traces: { exporter } };
  if (exporter !== 'otlp')
    throw new MissingTelemetrySettingError(
      'OTEL_TRACES_EXPORTER',
      `must be one of ${TRACES_EXPORTERS.join(', ')}, not '${exporter}'`,
    );
  const endpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (!/^https?:\/\/[^/]/.test(endpoint))
    throw new MissingTelemetrySettingError(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      `must be an http(s) URL, not '${endpoint}'`,
    );
  return { metricsNamespace, traces: { exporter, endpoint } };
}
