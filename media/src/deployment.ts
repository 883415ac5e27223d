/**
 * What the media service and its deployment (infra/constructs/media.ts: load balancer, health
 * check, scaling) agree on. No runtime dependencies, so the CDK app can import it.
 */

/** The provider's Media Streams WebSocket. */
export const MEDIA_STREAM_PATH = '/media';

/**
 * What one media task holds, measured by bench/media-capacity.ts on one core of a quiet machine
 * (docs/benchmarks.md, "Media capacity"): 100 concurrent calls meet every goal (frames on time,
 * turn overhead p95 26 ms, 1.7 MiB per call); 200 do not (p95 289 ms at 74 % of the core, after
 * the recorder's per-frame cost was cut). The task gets that core (1 vCPU), refuses calls beyond
 * the measured figure, and scaling aims at half of it, since a new task takes minutes to start and
 * calls arrive in seconds.
 */
export const MEASURED_TASK_CAPACITY = { vcpu: 1, memoryMiB: 2048, calls: 100 } as const;
export const DEFAULT_CALLS_PER_TASK = MEASURED_TASK_CAPACITY.calls / 2;

/** The load balancer's health check: 200 while serving, 503 once draining. */
export const HEALTH_PATH = '/healthz';

/**
 * Calls in progress on one task, published by each task every `publishEverySeconds` as an
 * embedded-metric-format log line (CloudWatch extracts it from the container's log group). Every
 * task writes the same dimensions, so the metric's Average over a period is the mean number of
 * calls per task: the figure target-tracking scaling keeps near its target.
 */
export const ACTIVE_CALLS_METRIC = {
  namespace: 'VoiceAgentPlatform/Media',
  name: 'ActiveCalls',
  serviceName: 'media',
  publishEverySeconds: 10,
} as const;

/**
 * The attributes of every turn latency span (media/src/telemetry/latency-spans.ts) that the
 * collector's X-Ray exporter indexes as annotations, so traces are found by agent or run.
 */
export const TRACE_INDEXED_ATTRIBUTES = ['agent_id', 'run_id'] as const;
