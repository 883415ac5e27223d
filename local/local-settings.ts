/**
 * The local stack's knobs from its environment (`npm start`, and the benches that start the stack):
 * the one place they are read and checked. A malformed value stops the stack, named.
 * docs/local-stack.md lists them.
 */
export interface LocalStackSettings {
  /** PORT (default 3000; 0 picks a free port). */
  port: number;
  /** LOG_LEVEL of the handlers (default INFO). */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** AUTHORIZER_CACHE_TTL_SECONDS (default: the gateway's, as on AWS). */
  authorizerCacheTtlSeconds?: number;
  /** MAX_CALL_SECONDS, the longest call (default one hour, as on AWS). */
  maxCallSeconds?: number;
  /** SIM_CALL_SECONDS: the longest simulated answered call. */
  simCallSeconds?: number;
  /** SIM_CALLS_PER_SECOND: outbound calls per second of the local Twilio account. */
  callsPerSecond?: number;
  /** CAMPAIGN_TIME_SCALE: divides campaign retry delays and source re-sync periods. */
  campaignTimeScale?: number;
  /** CAMPAIGN_POLL_SECONDS: how often a campaign engine looks in while its calls are in flight. */
  campaignPollSeconds?: number;
  /** MEDIA_EARLY_CONNECTIONS=off: dialed calls are not made ready while they ring (on by default, as on AWS). */
  earlyConnections: boolean;
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;

function number(env: Record<string, string | undefined>, name: string, check: (value: number) => boolean) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!check(value)) throw new Error(`${name} must be a number in range, not '${raw}'`);
  return value;
}

export function localStackSettings(env: Record<string, string | undefined>): LocalStackSettings {
  const positive = (value: number) => Number.isFinite(value) && value > 0;
  const port = number(env, 'PORT', (value) => Number.isInteger(value) && value >= 0 && value <= 65535) ?? 3000;
  const logLevel = env.LOG_LEVEL ?? 'INFO';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not '${logLevel}'`);
  const early = env.MEDIA_EARLY_CONNECTIONS ?? 'on';
  if (early !== 'on' && early !== 'off') throw new Error(`MEDIA_EARLY_CONNECTIONS must be on or off, not '${early}'`);
  return {
    port,
    logLevel: logLevel as LocalStackSettings['logLevel'],
    authorizerCacheTtlSeconds: number(env, 'AUTHORIZER_CACHE_TTL_SECONDS', (value) => value >= 0 && value <= 3600),
    maxCallSeconds: number(env, 'MAX_CALL_SECONDS', positive),
    simCallSeconds: number(env, 'SIM_CALL_SECONDS', positive),
    callsPerSecond: number(env, 'SIM_CALLS_PER_SECOND', positive),
    campaignTimeScale: number(env, 'CAMPAIGN_TIME_SCALE', positive),
    campaignPollSeconds: number(env, 'CAMPAIGN_POLL_SECONDS', positive),
    earlyConnections: early === 'on',
  };
}
