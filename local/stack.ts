import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { API_PREFIX } from '../shared/api/route.ts';
import { CALLER_VOICE_SETTINGS, METRICS_NAMESPACE } from '../shared/config/settings.ts';
import { EVENT_BUS_NAME } from '../shared/events/names.ts';
import { ensureTable } from './bootstrap.ts';
import { startDynamoDbLocal } from './emulators/dynamodb-local.ts';
import { startS3Local } from './emulators/s3.ts';
import { CONSOLE_PATH, consoleFiles } from '../infra/console-site.ts';
import { startLocalGateway } from './gateway.ts';
import { startLocalEventBus } from './event-bus.ts';
import { localVoiceProviders, type LocalVoiceProviders } from '../shared/config/local-voice-providers.ts';
import { localSecret } from './secrets.ts';
import { configureLocalFunctions } from './lambda-runtime.ts';
import { startLocalSecretsManager } from './secrets-manager.ts';
import { startLocalStepFunctions } from './step-functions.ts';
import { startLocalScheduler } from './scheduler.ts';
import { LOCAL_SHEETS_CLIENT, startSheetsSimulator } from './sheets-simulator.ts';
import { startLocalTwilio } from './carrier/twilio-wire.ts';
import { startLocalTelnyx } from './carrier/telnyx-wire.ts';
import { Handsets } from './carrier/handsets.ts';
import { localStackSettings } from './local-settings.ts';

export const LOCAL_TABLE_NAME = 'voice-agent-platform';
export const LOCAL_BUCKET_NAME = 'voice-agent-platform-local';
const REGION = 'us-east-1';
const LOCAL_REST_API_ID = 'local';
const LOCAL_STAGE_NAME = 'prod';
const LOCAL_USAGE_PLAN_ID = 'organizations';
/** The local platform account's own number: the caller id of agents without an outbound number. */
export const LOCAL_CALLER_ID = '+12125550100';

export interface LocalStackOptions {
  /** 0 picks a free port. */
  port: number;
  /** Persistent data folder; without it DynamoDB is in memory and S3 uses a temporary folder. */
  dataDir?: string;
  /**
   * Options of DynamoDB Local's JVM (default none: the JVM's own). The tests' stack lives for one run
   * of the suite and passes its own: see test/support/global-setup.ts.
   */
  dynamoDbJvmOptions?: readonly string[];
  /** Handler log level (Powertools): INFO for `npm start`, SILENT for tests and benchmarks. */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  authorizerCacheTtlSeconds?: number;
  /** Per-organization rate limit of the local gateway (default ORGANIZATION_RATE_LIMIT, as on AWS; benchmarks lift it). */
  usagePlan?: { rateLimit: number; burstLimit: number };
  /** Longest simulated answered call (SIM_CALL_SECONDS, default 20); the agent usually hangs up first. */
  simCallSeconds?: number;
  /** The longest call (MAX_CALL_SECONDS, default one hour, as on AWS). */
  maxCallSeconds?: number;
  /** Dialed calls made ready while they ring (MEDIA_EARLY_CONNECTIONS; default on, as on AWS). */
  earlyConnections?: boolean;
  /**
   * How long the agent waits on a silent model before its "one moment" filler (wall time; default
   * FILLER_AFTER_MS, 2 s, as on AWS). The tests' stack waits longer: see test/support/global-setup.ts.
   */
  fillerAfterMs?: number;
  /**
   * How many times faster than real time the simulated carriers' lines run (default 1: `npm start`
   * talks in real time; the tests' global setup speeds them up): the callee's speech, the playing
   * of the agent's audio, the carriers' text-to-speech and answering-machine detection
   * (local/carrier/carrier.ts, SimulatedCarrierOptions.linePace).
   */
  linePace?: number;
  /** Divides the webhook retry schedule (default 60: 5 min becomes 5 s). */
  webhookRetryTimeScale?: number;
  /** Divides campaign retry delays (default 60: a one-hour retry delay becomes one minute). */
  campaignTimeScale?: number;
  /** How often a campaign engine looks in while its calls are in flight (default 1 s; 60 s on AWS). */
  campaignPollSeconds?: number;
  /** Divides the intervals of scheduled functions (tests run the every-minute source sync every second). */
  scheduleIntervalScale?: number;
  /** Outbound calls per second of the local Twilio account (SIM_CALLS_PER_SECOND, default 20; Twilio's own default is 1). */
  callsPerSecond?: number;
  /** How long the local providers' regulatory reviewers take to decide (default 5 s; the tests' stack: a fraction of a second). */
  regulatoryReviewMs?: number;
  /** Step Functions test overrides (milliseconds per state name). */
  waitTimeOverrides?: Record<string, number>;
  retryIntervalOverrides?: Record<string, number>;
  /**
   * The platform's speech and model providers: `npm start` gives the real ones whose keys are in
   * its environment (shared/config/local-voice-providers.ts). Default: every one the local fake.
   */
  voiceProviders?: LocalVoiceProviders;
}

export interface LocalStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  /** `http://127.0.0.1:<port>/console/`: the console, on the API's origin. */
  consoleUrl: string;
  /** The environment handlers run with: what a process needs to reach the same emulators. */
  env: Record<string, string>;
  /** The local Twilio's API origin (tests ring platform numbers through it). */
  telephonyApiUrl: string;
  /** The local Telnyx's origin (its `/_simulator/` control resources; its API is `…/v2`). */
  telnyxOrigin: string;
  /** The platform model's key, the local fake's in tests (in the voice providers' secret; tests set it as an organization key). */
  platformModelKey: string;
  /** Resolves when no simulated call is in progress and no event awaits its targets (tests). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * The whole application on this machine: DynamoDB Local, s3rver, the Step Functions emulator and
 * the API gateway, with every Lambda handler running in this process against them through the
 * AWS SDK, configured only by environment variables, exactly as on AWS.
 */
export async function startLocalStack(given: LocalStackOptions): Promise<LocalStack> {
  // What the caller does not give comes from the environment's knobs (benches run with them too).
  const fromEnvironment = localStackSettings(process.env);
  const options: LocalStackOptions = {
    ...given,
    maxCallSeconds: given.maxCallSeconds ?? fromEnvironment.maxCallSeconds,
    simCallSeconds: given.simCallSeconds ?? fromEnvironment.simCallSeconds,
    callsPerSecond: given.callsPerSecond ?? fromEnvironment.callsPerSecond,
    earlyConnections: given.earlyConnections ?? fromEnvironment.earlyConnections,
    campaignTimeScale: given.campaignTimeScale ?? fromEnvironment.campaignTimeScale,
    campaignPollSeconds: given.campaignPollSeconds ?? fromEnvironment.campaignPollSeconds,
  };
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse())
      await stopOne().catch((error: unknown) => console.error('Stopping local stack:', error));
    stops.length = 0;
  };
  try {
    let s3Directory = options.dataDir && join(options.dataDir, 's3');
    if (!s3Directory) {
      const temporary = mkdtempSync(join(tmpdir(), 'vap-s3-'));
      stops.push(async () => rmSync(temporary, { recursive: true, force: true }));
      s3Directory = temporary;
    }
    const [dynamo, s3] = await Promise.all([
      startDynamoDbLocal({
        dataDir: options.dataDir && join(options.dataDir, 'dynamodb'),
        jvmOptions: options.dynamoDbJvmOptions,
      }),
      startS3Local({ directory: s3Directory, bucketName: LOCAL_BUCKET_NAME }),
    ]);
    stops.push(dynamo.stop, s3.stop);

    const secretsManager = await startLocalSecretsManager({
      region: REGION,
      secrets: {
        'download-links': localSecret(options.dataDir, 'download-links'),
        'sheets-oauth': JSON.stringify(LOCAL_SHEETS_CLIENT),
        'media-streams': localSecret(undefined, 'media-streams'),
      },
    });
    stops.push(secretsManager.stop);

    // The settings of the functions (each gets only its own: shared/config/settings.ts), with
    // what the stack's runtime gives: region, credentials and, locally, the emulators' endpoints.
    const env: Record<string, string> = {
      AWS_REGION: REGION,
      // s3rver accepts only its own access key; DynamoDB Local accepts any.
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      TABLE_NAME: LOCAL_TABLE_NAME,
      BUCKET_NAME: LOCAL_BUCKET_NAME,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
      POWERTOOLS_SERVICE_NAME: 'voice-agent-platform-api',
      POWERTOOLS_LOG_LEVEL: options.logLevel ?? 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_METRICS_DISABLED: 'true',
      DOWNLOAD_LINK_SECRET_ARN: secretsManager.arns['download-links']!,
      SHEETS_SECRET_ARN: secretsManager.arns['sheets-oauth']!,
      MAX_CALL_SECONDS: String(options.maxCallSeconds ?? 3600),
      DEFAULT_CALLER_ID: LOCAL_CALLER_ID,
      MEDIA_STREAM_SECRET_ARN: secretsManager.arns['media-streams']!,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      WEBHOOK_RETRY_TIME_SCALE: String(options.webhookRetryTimeScale ?? 60),
      CAMPAIGN_TIME_SCALE: String(options.campaignTimeScale ?? 60),
      CAMPAIGN_POLL_SECONDS: String(options.campaignPollSeconds ?? 1),
    };
    // Handlers read their configuration from the environment, as on AWS; they run in this process.
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    Object.assign(process.env, env);
    await ensureTable(new DynamoDBClient({ endpoint: dynamo.endpoint }), LOCAL_TABLE_NAME);

    const stepFunctions = await startLocalStepFunctions({
      region: REGION,
      waitTimeOverrides: options.waitTimeOverrides,
      retryIntervalOverrides: options.retryIntervalOverrides,
    });
    stops.push(stepFunctions.stop);
    const eventBus = await startLocalEventBus({ region: REGION });
    stops.push(eventBus.stop);
    // Imported only now, as the services below: the media service's code reaches the handlers' logger,
    // which reads its level (POWERTOOLS_LOG_LEVEL, SILENT in tests and benchmarks) once, when loaded.
    const { startLocalMediaService } = await import('./media-service.ts');
    const media = await startLocalMediaService(options.voiceProviders ?? localVoiceProviders({}), {
      earlyConnections: options.earlyConnections ?? true,
      timing: options.fillerAfterMs === undefined ? undefined : { fillerAfterMs: options.fillerAfterMs },
    });
    stops.push(media.stop);
    // The platform's Twilio account, at the local Twilio: the same adapter code as on AWS.
    const twilioAccount = { sid: `AC${randomBytes(16).toString('hex')}`, authToken: randomBytes(16).toString('hex') };
    const callsPerSecond = options.callsPerSecond ?? 20;
    // One phone network: a handset picked up at either local provider is reached by a call through either.
    const handsets = new Handsets();
    stops.push(async () => handsets.stop());
    const telephony = await startLocalTwilio({
      handsets,
      account: twilioAccount,
      ownedNumbers: [LOCAL_CALLER_ID],
      callSeconds: options.simCallSeconds ?? 20,
      linePace: options.linePace,
      callsPerSecond,
      reviewDelayMs: options.regulatoryReviewMs,
    });
    stops.push(telephony.stop);
    // Organizations may bring their own Telnyx account: a local Telnyx for them, the same adapter code as on AWS.
    const telnyx = await startLocalTelnyx({
      handsets,
      callSeconds: options.simCallSeconds ?? 20,
      linePace: options.linePace,
      reviewDelayMs: options.regulatoryReviewMs,
    });
    stops.push(telnyx.stop);
    const sheets = await startSheetsSimulator();
    stops.push(sheets.stop);
    Object.assign(env, {
      ...sheets.env,
      LOCAL_ENCRYPTION_KEY: localSecret(options.dataDir, 'encryption-key'),
      // Empty: the secret box uses LOCAL_ENCRYPTION_KEY instead of KMS (no KMS emulator).
      KMS_KEY_ID: '',
      AWS_ENDPOINT_URL_SFN: stepFunctions.endpoint,
      ...stepFunctions.stateMachineArns,
      AWS_ENDPOINT_URL_EVENTBRIDGE: eventBus.endpoint,
      EVENT_BUS_NAME,
      TELEPHONY_SECRET_ARN: secretsManager.put(
        'telephony',
        JSON.stringify({ provider: 'twilio', account_sid: twilioAccount.sid, auth_token: twilioAccount.authToken }),
      ),
      TWILIO_API_BASE_URL: telephony.apiUrl,
      TELNYX_API_BASE_URL: telnyx.apiUrl,
      TELEPHONY_CALLS_PER_SECOND: String(callsPerSecond),
      DEFAULT_CALLER_ID: LOCAL_CALLER_ID,
      TELEPHONY_REGULATORY_EMAIL: 'numbers@localhost',
      MEDIA_STREAM_URL: media.streamUrl,
      // The platform model (the local fake unless npm start has a key): URL and name as settings, its key in the secret.
      LLM_API_URL: media.platformModelEnv.LLM_API_URL,
      LLM_MODEL: media.platformModelEnv.LLM_MODEL,
      VOICE_PROVIDERS_SECRET_ARN: secretsManager.put('voice-providers', JSON.stringify(media.voiceKeys)),
      // A voice test's simulated caller speaks and hears through the same providers (a real one has no URL),
      // on a line as fast as the simulated carrier's.
      ...Object.fromEntries(
        [...CALLER_VOICE_SETTINGS, 'DEEPGRAM_API_URL', 'ELEVENLABS_API_URL'].map((name) => [
          name,
          media.voiceSettings[name] ?? '',
        ]),
      ),
      TEST_LINE_PACE: String(options.linePace ?? 1),
      // A voice test's caller holds a phone on the local carrier: its case is a call placed to it, through
      // the organization's provider (the local Twilio, or its own Telnyx account at the local Telnyx).
      TEST_CALLER_HANDSETS_URL: telephony.handsetsUrl,
    });
    Object.assign(process.env, env);

    const gateway = await startLocalGateway({
      port: options.port,
      authorizerCacheTtlSeconds: options.authorizerCacheTtlSeconds ?? 60,
      usagePlan: options.usagePlan,
      console: consoleFiles({ sourceMaps: true }),
    });
    stops.push(gateway.close);
    const baseUrl = `${gateway.origin}${API_PREFIX}`;
    Object.assign(env, {
      PUBLIC_BASE_URL: baseUrl,
      // The operator's API Gateway settings (usage-plan keys, authorizer cache flush), served by the gateway.
      AWS_ENDPOINT_URL_API_GATEWAY: gateway.managementEndpoint,
      REST_API_ID: LOCAL_REST_API_ID,
      API_STAGE_NAME: LOCAL_STAGE_NAME,
      USAGE_PLAN_ID: LOCAL_USAGE_PLAN_ID,
    });
    Object.assign(process.env, env);
    configureLocalFunctions(env);
    // The platform's numbers ring the API's voice webhook, as their VoiceUrl does at Twilio.
    telephony.setVoiceUrl(`${baseUrl}/telephony/twilio/voice`);
    // Telnyx sends the events of incoming calls to the Call Control application's webhook URL.
    telnyx.setVoiceUrl(`${baseUrl}/telephony/telnyx/voice`);
    // Texts to the numbers (Twilio: a number's SmsUrl, else this; Telnyx: the messaging profile's webhook).
    telephony.setMessagingUrl(`${baseUrl}/telephony/twilio/messages`);
    telnyx.setMessagingUrl(`${baseUrl}/telephony/telnyx/messages`);
    // Number orders' news (a regulated number's review) at the platform's review webhook.
    telnyx.setNumberOrderUrl(`${baseUrl}/telephony/telnyx/status`);

    // Imported only now: the services' logger and clients read the environment set above.
    const { endOrphanedCalls } = await import('../shared/services/call-sweeper.ts');
    const { restartActiveCampaigns } = await import('../shared/services/campaign-engine.ts');
    // Calls cut off by a previous stop (their state machines and streams lived in that process) end now.
    await endOrphanedCalls(new Date(), 'The local stack stopped during the call');
    // Their engine executions lived in that process too: campaigns pick up from their contact rows.
    await restartActiveCampaigns();
    // Webhook deliveries waiting for an attempt lived there as well: they continue from their records.
    await (await import('../shared/services/webhooks.ts')).resumePendingDeliveries();

    const scheduler = startLocalScheduler({ intervalScale: options.scheduleIntervalScale ?? 1 });
    stops.push(scheduler.stop);

    const idle = async () => {
      await telephony.idle();
      await telnyx.idle();
      await eventBus.idle();
    };
    return {
      baseUrl,
      consoleUrl: `${gateway.origin}${CONSOLE_PATH}`,
      env,
      telephonyApiUrl: telephony.apiUrl,
      telnyxOrigin: telnyx.origin,
      platformModelKey: media.voiceKeys.llmApiKey,
      idle,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
