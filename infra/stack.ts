import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api } from './constructs/api.ts';
import { Data } from './constructs/data.ts';
import { Events } from './constructs/events.ts';
import { Functions } from './constructs/functions.ts';
import { Media } from './constructs/media.ts';
import { Secrets } from './constructs/secrets.ts';
import { stateMachineRefs, Workflows } from './constructs/workflows.ts';

export interface VoiceAgentPlatformApiStackProps extends StackProps {
  stageName?: string;
  /** Days recordings and transcripts are kept in the bucket. */
  retentionDays?: number;
  /** Telephony settings from context (README "Deploying to AWS"). */
  mediaStreamUrl?: string;
  defaultCallerId?: string;
  telephonyCallsPerSecond?: number;
  telephonyRegulatoryEmail?: string;
}

/** Everything the API runs on, derived from the tables in shared/api. */
export class VoiceAgentPlatformApiStack extends Stack {
  readonly data: Data;
  readonly events: Events;
  readonly secrets: Secrets;
  readonly functions: Functions;
  readonly workflows: Workflows;
  readonly api: Api;
  readonly media: Media;

  constructor(scope: Construct, id: string, props: VoiceAgentPlatformApiStackProps = {}) {
    super(scope, id, props);

    this.data = new Data(this, 'Data', { retentionDays: props.retentionDays });
    this.events = new Events(this, 'Events');
    this.secrets = new Secrets(this, 'Secrets');
    this.functions = new Functions(this, 'Functions', {
      table: this.data.table,
      bucket: this.data.bucket,
      eventBus: this.events.bus,
      stateMachines: stateMachineRefs(this),
      secrets: this.secrets,
      telephony: {
        mediaStreamUrl: props.mediaStreamUrl ?? '',
        defaultCallerId: props.defaultCallerId ?? '',
        callsPerSecond: props.telephonyCallsPerSecond ?? 1,
        regulatoryEmail: props.telephonyRegulatoryEmail ?? '',
      },
    });
    this.events.addRules(this.functions);
    this.workflows = new Workflows(this, 'Workflows', { functions: this.functions });
    this.api = new Api(this, 'Api', { functions: this.functions, stageName: props.stageName });
    // Added after the API exists; built from the API id, not the stage, to avoid a cycle.
    for (const fn of this.functions.withAccess('publicUrl')) fn.addEnvironment('PUBLIC_BASE_URL', this.api.baseUrlForFunctions);
    this.media = new Media(this, 'Media', { table: this.data.table, bucket: this.data.bucket, eventBus: this.events.bus, mediaStreamSecret: this.secrets.mediaStreamSecret });

    new CfnOutput(this, 'ApiUrl', { value: this.api.baseUrl, description: 'Base URL of the API (ends in /api/v1)' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
  }
}
