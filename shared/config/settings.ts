import { FUNCTION_GROUPS, type FunctionGroup, type FunctionGroupName } from '../api/function-groups.ts';
import { STATE_MACHINES } from '../api/state-machines.ts';
import { VOICE_SETTINGS, type VoiceSettingName } from './voice-settings.ts';

/**
 * Every setting (environment variable) a Lambda function reads, and which functions read it. The
 * CDK stack gives each function exactly `settingsFor(name, group)`, the local stack gives each
 * in-process handler the same names (plus the local-only ones), and both are tested. A new
 * setting is a new row here; reading it from a function that is not listed fails in the local
 * stack and its tests, as it would be unset on AWS.
 */
type AccessFlag = keyof FunctionGroup['access'];
export type FunctionName = FunctionGroupName | 'authorizer';

export interface SettingSpec {
  /** Who reads it: every function, the functions with an access flag (or any of several), or named functions. */
  readBy: 'all' | AccessFlag | { anyOf: readonly AccessFlag[] } | readonly FunctionName[];
  description: string;
  /** Set only by the local stack and tests (time scales, emulator switches); absent on AWS, where the default applies. */
  localOnly?: boolean;
}

/**
 * Groups that place calls or build call-lifecycle inputs (shared/services/calls.ts reads these at
 * import); the agent-test runner places a voice case's call over the local carrier.
 */
const PLACES_CALLS = [
  'agentTestRunner',
  'calls',
  'campaigns',
  'campaignEngine',
  'campaignOutcomes',
  'campaignSourceSync',
  'dueTasks',
] as const satisfies FunctionName[];
/** Groups that read the longest call's length: those placing calls, and the stuck-run sweeper. */
const KNOWS_CALL_LENGTH = [...PLACES_CALLS, 'callSweeper', 'telephonyCallbacks'] as const satisfies FunctionName[];
/** Groups that connect a call to the media service, so mint its stream credential (shared/services/call-control.ts): the dial step, inbound calls, and the campaign dispatchers, which dial what they place. */
const STREAMS_CALLS = [
  'callLifecycle',
  'telephonyCallbacks',
  'campaignEngine',
  'campaignOutcomes',
] as const satisfies FunctionName[];
/** Groups that run the campaign engine or its schedule (shared/services/campaign-engine.ts, campaign-refresh.ts). */
const RUNS_CAMPAIGNS = [
  'campaigns',
  'campaignEngine',
  'campaignOutcomes',
  'campaignSourceSync',
] as const satisfies FunctionName[];

/**
 * The media task's voice settings (shared/config/voice-settings.ts) that a voice test's simulated
 * caller reads too: its text-to-speech and speech-to-text are the platform's (functions/agent-test-runner/caller-line.ts).
 */
export const CALLER_VOICE_SETTINGS = [
  'TTS_PROVIDER',
  'TTS_VOICE',
  'ELEVENLABS_MODEL',
  'OPENAI_TTS_MODEL',
  'DEEPGRAM_MODEL',
  'DEEPGRAM_FLUX_MODEL',
] as const satisfies VoiceSettingName[];

export const SETTINGS = {
  POWERTOOLS_SERVICE_NAME: {
    readBy: 'all',
    description: 'Logger, metrics and tracer service name: voice-agent-api-<function>',
  },
  POWERTOOLS_LOG_LEVEL: { readBy: 'all', description: 'Log level (INFO on AWS)' },
  POWERTOOLS_METRICS_NAMESPACE: { readBy: 'all', description: 'CloudWatch namespace of the custom metrics' },
  POWERTOOLS_METRICS_DISABLED: { readBy: 'all', localOnly: true, description: 'No EMF metrics on stdout locally' },
  TABLE_NAME: { readBy: 'table', description: 'The DynamoDB table' },
  BUCKET_NAME: { readBy: 'bucket', description: 'The bucket of recordings, transcripts and documents' },
  S3_FORCE_PATH_STYLE: { readBy: 'bucket', localOnly: true, description: 'Path-style S3 URLs (s3rver, LocalStack)' },
  EVENT_BUS_NAME: { readBy: 'eventBus', description: 'The application event bus' },
  ...(Object.fromEntries(
    STATE_MACHINES.map((sm) => [
      sm.envVar,
      { readBy: 'stateMachines', description: `ARN of the ${sm.name} state machine` },
    ]),
  ) as Record<string, SettingSpec>),
  DOWNLOAD_LINK_SECRET_ARN: {
    readBy: 'downloadLinks',
    description: 'Secrets Manager secret: HMAC key of signed download links (generated)',
  },
  MEDIA_STREAM_URL: {
    readBy: { anyOf: ['telephony', 'browserSessions'] },
    description:
      'wss:// URL of the media service given to the provider (context mediaStreamUrl); browser sessions connect to the same host',
  },
  TELEPHONY_SECRET_ARN: {
    readBy: 'telephony',
    description:
      "Secrets Manager secret: the platform's telephony provider account (JSON TelephonyCredentials; a placeholder until the operator fills it)",
  },
  MEDIA_STREAM_SECRET_ARN: {
    readBy: [...STREAMS_CALLS, 'conversations', 'agentTestRunner'],
    description:
      'Secrets Manager secret: HMAC key of per-call media stream and browser session credentials (generated)',
  },
  TELEPHONY_CALLS_PER_SECOND: {
    readBy: 'telephony',
    description:
      "The platform account's outbound calls per second at the provider (context telephonyCallsPerSecond, default 1)",
  },
  TELEPHONY_REGULATORY_EMAIL: {
    readBy: 'telephony',
    description: 'Contact for regulatory reviews of numbers (context telephonyRegulatoryEmail)',
  },
  TWILIO_API_BASE_URL: {
    readBy: 'telephony',
    localOnly: true,
    description: "The Twilio API's origin (the local Twilio); unset on AWS: Twilio's public API",
  },
  TELNYX_API_BASE_URL: {
    readBy: 'telephony',
    localOnly: true,
    description: "The Telnyx API's base URL (the local Telnyx, …/v2); unset on AWS: Telnyx's public API",
  },
  PUBLIC_BASE_URL: { readBy: 'publicUrl', description: 'Public base URL of the API (…/api/v1)' },
  KMS_KEY_ID: {
    readBy: { anyOf: ['encryption', 'telephony'] },
    description: 'KMS key that encrypts stored customer secrets',
  },
  SHEETS_SECRET_ARN: {
    readBy: 'encryption',
    description:
      'Secrets Manager secret: OAuth client of the spreadsheet provider (JSON: clientId, clientSecret; optional pickerApiKey)',
  },
  LOCAL_ENCRYPTION_KEY: {
    readBy: { anyOf: ['encryption', 'telephony'] },
    localOnly: true,
    description: 'AES key standing in for KMS locally',
  },
  SHEETS_OAUTH_TOKEN_URL: {
    readBy: 'encryption',
    localOnly: true,
    description: 'Spreadsheet provider OAuth token URL (local fake)',
  },
  SHEETS_USERINFO_URL: {
    readBy: 'encryption',
    localOnly: true,
    description: 'Spreadsheet provider userinfo URL (local fake)',
  },
  SHEETS_API_URL: { readBy: 'encryption', localOnly: true, description: 'Spreadsheet provider API URL (local fake)' },
  SHEETS_OAUTH_AUTHORIZE_URL: {
    readBy: 'encryption',
    localOnly: true,
    description: "Spreadsheet provider's consent screen (local fake); unset on AWS: Google's",
  },
  SHEETS_PICKER_SCRIPT_URL: {
    readBy: 'encryption',
    localOnly: true,
    description: "The file picker's loader script (local fake); unset on AWS: Google's",
  },
  MAX_CALL_SECONDS: {
    readBy: KNOWS_CALL_LENGTH,
    description: 'Longest call; the call watchdog ends a run 5 min after it (context maxCallSeconds, default 3600)',
  },
  DEFAULT_CALLER_ID: {
    readBy: 'telephony',
    description:
      'Caller id of calls from an agent without an outbound number (context defaultCallerId; empty: such calls are refused)',
  },
  CAMPAIGN_TIME_SCALE: {
    readBy: RUNS_CAMPAIGNS,
    localOnly: true,
    description: 'Divides campaign retry delays and re-sync periods (local speed-up)',
  },
  CAMPAIGN_POLL_SECONDS: {
    readBy: RUNS_CAMPAIGNS,
    localOnly: true,
    description: 'Campaign engine poll period while channels are busy',
  },
  OUTBOUND_ALLOW_LOOPBACK: {
    readBy: 'all',
    localOnly: true,
    description: 'Lets the SSRF guard reach loopback simulators over plain http (local stack and tests only)',
  },
  WEBHOOK_RETRY_TIME_SCALE: {
    readBy: ['webhooks', 'webhookFanout', 'webhookDelivery'],
    localOnly: true,
    description: 'Divides the webhook retry schedule',
  },
  LLM_API_URL: {
    readBy: 'languageModel',
    description: 'OpenAI-compatible API base URL of the platform model (context llmApiUrl, default OpenAI)',
  },
  LLM_MODEL: { readBy: 'languageModel', description: 'Model name of the platform model (context llmModel)' },
  VOICE_PROVIDERS_SECRET_ARN: {
    readBy: 'languageModel',
    description: 'Secrets Manager secret of the voice providers (JSON: llmApiKey, deepgramApiKey, elevenLabsApiKey)',
  },
  ...(Object.fromEntries(
    CALLER_VOICE_SETTINGS.map((name): [string, SettingSpec] => [
      name,
      {
        readBy: ['agentTestRunner'],
        description: `${VOICE_SETTINGS[name].description}: a voice test's simulated caller's (context ${VOICE_SETTINGS[name].context}, as the media task's)`,
      },
    ]),
  ) as unknown as Record<(typeof CALLER_VOICE_SETTINGS)[number], SettingSpec>),
  DEEPGRAM_API_URL: {
    readBy: ['agentTestRunner'],
    localOnly: true,
    description: "A voice test's simulated caller's speech-to-text (the local Deepgram); unset on AWS: Deepgram's",
  },
  ELEVENLABS_API_URL: {
    readBy: ['agentTestRunner'],
    localOnly: true,
    description: "A voice test's simulated caller's text-to-speech (the local ElevenLabs); unset on AWS: ElevenLabs'",
  },
  TEST_LINE_PACE: {
    readBy: ['agentTestRunner'],
    localOnly: true,
    description: "How many times faster than real time a voice test's line runs (the tests' LINE_PACE); default 1",
  },
  TEST_CALLER_HANDSETS_URL: {
    readBy: ['agentTestRunner'],
    localOnly: true,
    description:
      "Where a voice test's simulated caller picks up the local carrier's handset of its number (/_simulator/handsets/ at the local Twilio, shared with the local Telnyx): its case is then a phone call through the organization's provider; unset on AWS: a voice session",
  },
  // Read by the operator CLI (API Gateway management), never by a function: stack outputs.
  // Also read by the operator CLI (stack outputs RestApiId, StageName).
  REST_API_ID: {
    readBy: 'authorizerCache',
    description: 'The REST API id: its authorizer cache is flushed on revocation',
  },
  API_STAGE_NAME: { readBy: 'authorizerCache', description: 'The API stage whose authorizer cache is flushed' },
  USAGE_PLAN_ID: { readBy: [], description: "Operator CLI: the organizations' usage plan (stack output UsagePlanId)" },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

/** Prefix of every function's POWERTOOLS_SERVICE_NAME: `voice-agent-api-<function>`. */
export const SERVICE_NAME = 'voice-agent-api';
export const serviceNameOf = (name: FunctionName): string => `${SERVICE_NAME}-${name}`;

/** Namespace of the custom CloudWatch metrics (shared/observability/metrics.ts). */
export const METRICS_NAMESPACE = 'VoiceAgentPlatform';

const ALL_SETTINGS = SETTINGS as Record<string, SettingSpec>;

export function isSetting(name: string): boolean {
  return Object.hasOwn(ALL_SETTINGS, name);
}

/** The settings function `name` reads: on AWS (`local: false`) or in the local stack (with the local-only ones). */
export function settingsFor(name: FunctionName, group: FunctionGroup, options: { local: boolean }): string[] {
  return Object.entries(ALL_SETTINGS)
    .filter(([, spec]) => options.local || !spec.localOnly)
    .filter(([, spec]) => {
      if (spec.readBy === 'all') return true;
      if (typeof spec.readBy === 'string') return Boolean(group.access[spec.readBy]);
      if ('anyOf' in spec.readBy) return spec.readBy.anyOf.some((flag) => Boolean(group.access[flag]));
      return spec.readBy.includes(name);
    })
    .map(([setting]) => setting)
    .sort();
}

/** Every function by name, authorizer included. */
export function allFunctions(authorizer: FunctionGroup): [FunctionName, FunctionGroup][] {
  return [['authorizer', authorizer], ...(Object.entries(FUNCTION_GROUPS) as [FunctionGroupName, FunctionGroup][])];
}

export class MissingSettingError extends Error {
  override readonly name = 'MissingSettingError';
  constructor(readonly setting: string) {
    super(
      `Setting ${setting} is not configured: ${ALL_SETTINGS[setting]?.description ?? 'see README, Deploying to AWS'}`,
    );
  }
}

/** A setting this function must have; a missing or empty one fails with its name. */
export function requiredSetting(name: SettingName): string {
  const value = process.env[name];
  if (!value) throw new MissingSettingError(name);
  return value;
}

/** A setting with a documented default (local-only knobs, optional context values). */
export function optionalSetting(name: SettingName): string | undefined {
  return process.env[name] || undefined;
}

/**
 * A numeric setting with a documented default; a value that is not a number greater than zero
 * fails with its name rather than falling back in silence.
 */
export function positiveNumberSetting(name: SettingName, fallback: number): number {
  const raw = optionalSetting(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`Setting ${name} must be a number greater than 0, not '${raw}'`);
  return value;
}
