import { Duration, Stack } from 'aws-cdk-lib';
import {
  ContainerDependencyCondition,
  ContainerImage,
  LogDrivers,
  type ContainerDefinition,
  type FargateTaskDefinition,
} from 'aws-cdk-lib/aws-ecs';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { MediaTelemetrySettingName } from '../../shared/config/media-telemetry.ts';
import { ACTIVE_CALLS_METRIC, TRACE_INDEXED_ATTRIBUTES } from '../../media/src/deployment.ts';
import { acknowledge } from '../nag.ts';

/** AWS Distro for OpenTelemetry collector, pinned: a new release is a reviewed change. */
export const COLLECTOR_IMAGE = 'public.ecr.aws/aws-observability/aws-otel-collector:v0.45.1';
export const COLLECTOR_CONTAINER = 'otel-collector';
/** The collector's OTLP/HTTP receiver: on the task's loopback, which its containers share (awsvpc). */
const OTLP_HTTP = '127.0.0.1:4318';
const HEALTH_CHECK = '127.0.0.1:13133';

/** The media container's telemetry settings (shared/config/media-telemetry.ts). */
export const MEDIA_TELEMETRY_ENVIRONMENT = {
  POWERTOOLS_METRICS_NAMESPACE: ACTIVE_CALLS_METRIC.namespace,
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://${OTLP_HTTP}/v1/traces`,
} as const satisfies Record<MediaTelemetrySettingName, string>;

/**
 * The collector's configuration (JSON, which it reads as YAML): spans in over OTLP/HTTP, batched,
 * out to X-Ray, the agent and run ids indexed as annotations so traces are found by them.
 */
export function collectorConfig(region: string): object {
  return {
    extensions: { health_check: { endpoint: HEALTH_CHECK } },
    receivers: { otlp: { protocols: { http: { endpoint: OTLP_HTTP } } } },
    processors: { batch: { timeout: '1s' } },
    exporters: { awsxray: { region, indexed_attributes: [...TRACE_INDEXED_ATTRIBUTES] } },
    service: {
      extensions: ['health_check'],
      pipelines: { traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['awsxray'] } },
    },
  };
}

/**
 * The collector beside the media container: the spans of each turn (media/src/telemetry/) reach
 * X-Ray through it. Not essential: a collector that stops costs spans, never calls. Its memory is
 * capped so it cannot take the calls'.
 */
export function addTraceCollector(
  taskDefinition: FargateTaskDefinition,
  media: ContainerDefinition,
  logGroup: ILogGroup,
): ContainerDefinition {
  const stack = Stack.of(taskDefinition);
  const collector = taskDefinition.addContainer(COLLECTOR_CONTAINER, {
    image: ContainerImage.fromRegistry(COLLECTOR_IMAGE),
    essential: false,
    memoryReservationMiB: 64,
    memoryLimitMiB: 256,
    environment: { AOT_CONFIG_CONTENT: stack.toJsonString(collectorConfig(stack.region)) },
    logging: LogDrivers.awsLogs({ streamPrefix: COLLECTOR_CONTAINER, logGroup }),
    healthCheck: {
      command: ['CMD', '/healthcheck'],
      interval: Duration.seconds(30),
      timeout: Duration.seconds(5),
      startPeriod: Duration.seconds(10),
    },
  });
  media.addContainerDependencies({ container: collector, condition: ContainerDependencyCondition.START });
  taskDefinition.addToTaskRolePolicy(
    new PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
  );
  acknowledge(
    taskDefinition.taskRole,
    "X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions (the collector's X-Ray exporter needs both).",
    'AwsSolutions-IAM5[Resource::*]',
  );
  return collector;
}
