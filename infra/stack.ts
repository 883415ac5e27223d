import { CfnOutput, NestedStack, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api } from './constructs/api.ts';
import { Data } from './constructs/data.ts';
import { DeadLetters } from './constructs/dead-letters.ts';
import { Events } from './constructs/events.ts';
import { type DeploymentSettings, Functions } from './constructs/functions.ts';
import { Media, type MediaSettings } from './constructs/media.ts';
import { ConsoleSite } from './constructs/console.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { Secrets } from './constructs/secrets.ts';
import { VoiceProviders } from './constructs/voice-providers.ts';
import { stateMachineRefs, Workflows } from './constructs/workflows.ts';
import { DEFAULT_LLM_API_URL, DEFAULT_LLM_MODEL } from '../shared/config/voice-settings.ts';

export interface VoiceAgentPlatformApiStackProps extends StackProps {
  stageName?: string;
  /** Days recordings and transcripts are kept in the bucket. */
  retentionDays?: number;
  /** Deployment settings from context (README, Deploying to AWS); empty when not given. */
  settings?: Partial<DeploymentSettings>;
  /** The media service's domain, certificate, call length and scaling (context; see README). */
  media: MediaSettings;
  /** Reserved concurrency for call completion (default true; needs an account quota above 10). */
  reserveConcurrency?: boolean;
}

/** Everything the API runs on, derived from the tables in shared/api. */
export class VoiceAgentPlatformApiStack extends Stack {
  readonly data: Data;
  readonly events: Events;
  readonly secrets: Secrets;
  readonly deadLetters: DeadLetters;
  readonly functions: Functions;
  readonly workflows: Workflows;
  readonly api: Api;
  readonly media: Media;
  readonly voiceProviders: VoiceProviders;
  readonly console: ConsoleSite;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: VoiceAgentPlatformApiStackProps) {
    super(scope, id, props);

    this.data = new Data(this, 'Data', { retentionDays: props.retentionDays });
    this.events = new Events(this, 'Events');
    this.secrets = new Secrets(this, 'Secrets');
    const settings: DeploymentSettings = {
      mediaStreamUrl: '',
      defaultCallerId: '',
      telephonyCallsPerSecond: 1,
      telephonyRegulatoryEmail: '',
      llmApiUrl: DEFAULT_LLM_API_URL,
      llmModel: DEFAULT_LLM_MODEL,
      maxCallSeconds: props.media.maxCallSeconds,
      ...props.settings,
    };
    this.voiceProviders = new VoiceProviders(this, 'VoiceProviders', settings);
    // A nested stack of its own: the API's methods and resources leave no room for the media
    // service's network, cluster and load balancer under CloudFormation's 500 resources a stack.
    this.media = new Media(new NestedStack(this, 'MediaService'), 'Media', {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      accessLogsBucket: this.data.logsBucket,
      settings: props.media,
      voiceProviders: this.voiceProviders,
      encryptionKey: this.secrets.encryptionKey,
      mediaStreamSecret: this.secrets.mediaStreamSecret,
      telephonySecret: this.secrets.telephonySecret,
    });
    this.deadLetters = new DeadLetters(this, 'DeadLetters');
    // The functions with their roles, policies, log groups, invoke configs, schedules and the API's
    // invoke permissions: a nested stack of their own, so the root keeps room for more routes.
    this.functions = new Functions(new NestedStack(this, 'Functions'), 'Functions', {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      stateMachines: stateMachineRefs(this),
      secrets: this.secrets,
      voiceProvidersSecret: this.voiceProviders.secret,
      voiceSettings: this.voiceProviders.settings,
      // The provider streams to the stack's own media service unless context names another.
      settings: { ...settings, mediaStreamUrl: settings.mediaStreamUrl || this.media.streamUrl },
      deadLetters: this.deadLetters,
      reserveConcurrency: props.reserveConcurrency,
    });
    this.events.addRules(this.functions, this.deadLetters);
    this.workflows = new Workflows(this, 'Workflows', { functions: this.functions });
    this.api = new Api(this, 'Api', { functions: this.functions, stageName: props.stageName });
    // Added after the API exists; built from the API id, not the stage, to avoid a cycle.
    this.functions.setDeferred('PUBLIC_BASE_URL', this.api.baseUrlForFunctions);
    // The media task gives the provider a transfer's callback URLs (shared/services/call-transfer.ts).
    this.media.taskDefinition.defaultContainer!.addEnvironment('PUBLIC_BASE_URL', this.api.baseUrlForFunctions);
    this.functions.allowAuthorizerCacheFlush(this.api.api.restApiId, this.api.stageName);
    // Alarms and the dashboard only read the rest: a nested stack of their own keeps the API stack
    // under CloudFormation's 500 resources.
    this.monitoring = new Monitoring(new NestedStack(this, 'Operations'), 'Monitoring', {
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      stateMachines: this.workflows.stateMachines,
      deadLetterQueues: this.deadLetters.all,
    });

    // The console's bucket and distribution: a nested stack of their own, like the others.
    this.console = new ConsoleSite(new NestedStack(this, 'Console'), 'Site', { api: this.api.api });

    new CfnOutput(this, 'ApiUrl', { value: this.api.baseUrl, description: 'Base URL of the API (ends in /api/v1)' });
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.console.url,
      description: 'The console (sign in with an API key); it also serves the API under /api/v1',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'Subscribe to receive the alarms',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    // For the operator CLI (REST_API_ID, API_STAGE_NAME, USAGE_PLAN_ID): usage-plan keys and authorizer cache flushes.
    new CfnOutput(this, 'RestApiId', { value: this.api.api.restApiId });
    new CfnOutput(this, 'StageName', { value: this.api.stageName });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    // For the operator CLI's `tools encrypt-headers` (KMS_KEY_ID).
    new CfnOutput(this, 'EncryptionKeyArn', { value: this.secrets.encryptionKey.keyArn });
    new CfnOutput(this, 'MediaStreamUrl', {
      value: this.media.streamUrl,
      description: 'Where providers stream call audio',
    });
    new CfnOutput(this, 'MediaLoadBalancerDnsName', {
      value: this.media.loadBalancer.loadBalancerDnsName,
      description: 'Point the media domain here (CNAME, or a Route 53 alias)',
    });
  }
}
