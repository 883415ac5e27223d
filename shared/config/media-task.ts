/**
 * The media task's own settings (media/src/main.ts), set on the task by the stack
 * (infra/, tested in test/infra/media.test.ts). A missing or malformed one stops the task, named.
 */
export interface MediaTaskSettings {
  /** Seconds a stopping task lets calls run on (DRAIN_SECONDS, default 110: below the container's stop timeout). */
  drainSeconds: number;
  /** The most calls a task holds (MEDIA_MAX_CALLS, from context mediaMaxCallsPerTask). */
  maxCalls: number;
  /** Whether dialed calls are made ready while they ring (MEDIA_EARLY_CONNECTIONS on/off, from context mediaEarlyConnections). */
  earlyConnections: boolean;
  /** The port of the provider's Media Streams and the load balancer's health check (PORT, default 8080; 0: a free one). */
  port: number;
}

export function mediaTaskSettings(env: Record<string, string | undefined>): MediaTaskSettings {
  const drainRaw = env.DRAIN_SECONDS ?? '110';
  const drainSeconds = Number(drainRaw);
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0)
    throw new Error(`DRAIN_SECONDS must be a number of seconds >= 0, got '${drainRaw}'`);
  const callsRaw = env.MEDIA_MAX_CALLS ?? '';
  const maxCalls = Number(callsRaw);
  if (!Number.isInteger(maxCalls) || maxCalls < 1)
    throw new Error(`MEDIA_MAX_CALLS must be a whole number >= 1, got '${callsRaw}'`);
  const early = env.MEDIA_EARLY_CONNECTIONS ?? '';
  if (early !== 'on' && early !== 'off') throw new Error(`MEDIA_EARLY_CONNECTIONS must be on or off, got '${early}'`);
  const portRaw = env.PORT ?? '8080';
  const port = Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got '${portRaw}'`);
  return { drainSeconds, maxCalls, earlyConnections: early === 'on', port };
}
