import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api } from './constructs/api.ts';
import { Data } from './constructs/data.ts';
import { Events } from './constructs/events.ts';
import { type DeploymentSettings, Functions } from './constructs/functions.ts';
import { Media, type MediaSettings } from './constructs/media.ts';
import { Secrets } from './constructs/secrets.ts';
import { stateMachineRefs, Workflows } from './constructs/workflows.ts';

export interface VoiceAgentPlatformApiStackProps extends StackProps {
  stageName?: string;
  /** Days recordings and transcripts are kept in the bucket. */
  retentionDays?: number;
  /** Deployment settings from context (README, Deploying to AWS); empty when not given. */
  settings?: Partial<DeploymentSettings>;
  /** The media service's domain, certificate, call length and scaling (context; see README). */
  media: MediaSettings;
}

export const DEFAULT_MAX_CALL_SECONDS = 3600;
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

/** Everything the API runs on, derived from the tables in shared/api. */
export class VoiceAgentPlatformApiStack extends Stack {
  readonly data: Data;
  readonly events: Events;
  readonly secrets: Secrets;
  readonly functions: Functions;
  readonly workflows: Workflows;
  readonly api: Api;
  readonly media: Media;

  constructor(scope: Construct, id: string, props: VoiceAgentPlatformApiStackProps) {
    super(scope, id, props);

    this.data = new Data(this, 'Data', { retentionDays: props.retentionDays });
    this.events = new Events(this, 'Events');
    this.secrets = new Secrets(this, 'Secrets');
    this.media = new Media(this, 'Media', {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      accessLogsBucket: this.data.logsBucket,
      settings: props.media,
    });
    this.functions = new Functions(this, 'Functions', {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      stateMachines: stateMachineRefs(this),
      secrets: this.secrets,
      settings: {
        telephonyApiUrl: '',
        numberMarketplaceUrl: '',
        defaultCallerId: '',
        llmApiUrl: '',
        llmModel: DEFAULT_LLM_MODEL,
        maxCallSeconds: DEFAULT_MAX_CALL_SECONDS,
        ...props.settings,
        // The media service's wss:// URL unless context overrides it.
        mediaStreamUrl: props.settings?.mediaStreamUrl || this.media.streamUrl,
      },
    });
    this.events.addRules(this.functions);
    this.workflows = new Workflows(this, 'Workflows', { functions: this.functions });
    this.api = new Api(this, 'Api', { functions: this.functions, stageName: props.stageName });
    // Added after the API exists; built from the API id, not the stage, to avoid a cycle.
    this.functions.setDeferred('PUBLIC_BASE_URL', this.api.baseUrlForFunctions);

    new CfnOutput(this, 'ApiUrl', { value: this.api.baseUrl, description: 'Base URL of the API (ends in /api/v1)' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'MediaStreamUrl', { value: this.media.streamUrl, description: 'Where providers stream call audio' });
    new CfnOutput(this, 'MediaLoadBalancerDnsName', {
      value: this.media.loadBalancer.loadBalancerDnsName,
      description: 'Point the media domain here (CNAME, or a Route 53 alias)',
    });
  }
}
