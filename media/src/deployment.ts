/**
 * What the media service and its deployment (infra/constructs/media.ts: load balancer, health
 * check, scaling) agree on. No runtime dependencies, so the CDK app can import it.
 */

/** The provider's Media Streams WebSocket. */
export const MEDIA_STREAM_PATH = '/media';

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
