import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { DEFAULT_RETENTION_DAYS } from './constructs/data.ts';
import { mediaSettingsFromContext } from './constructs/media.ts';
import { REPO_ROOT } from './paths.ts';
import { VoiceAgentPlatformApiStack } from './stack.ts';

export const STACK_NAME = 'VoiceAgentPlatformApi';

/**
 * Builds the app with its one stack and the cdk-nag AwsSolutions and Serverless packs. Shared by `infra/app.ts`
 * and the infra test so both synthesize exactly the same thing. `cloudFormationValidation: false` skips
 * aws-cdk-lib's built-in template validation (its findings are warnings only; it changes no output and
 * costs about 8 CPU s on a first synthesis): the infra tests that only read templates pass it, the
 * deploy and test/infra/stack.test.ts keep it. The cdk-nag packs run either way.
 */
export function createApp(options: { context?: Record<string, unknown>; cloudFormationValidation?: boolean } = {}) {
  // cdk.json context (feature flags) as defaults, so tests synthesize what the CLI does; -c still wins.
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, ...options.context },
    builtinCloudFormationValidation: options.cloudFormationValidation ?? true,
  });
  // `-c` values arrive as strings, cdk.json values as JSON: accept both.
  const stageName = String(app.node.tryGetContext('stageName') ?? 'prod');
  const text = (key: string) => String(app.node.tryGetContext(key) ?? '');
  const positiveInteger = (key: string, fallback?: number) => {
    const value = Number(app.node.tryGetContext(key) ?? fallback);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`Context ${key} must be a positive integer, got ${String(app.node.tryGetContext(key))}`);
    return value;
  };
  const positiveNumber = (key: string) => {
    const value = Number(app.node.tryGetContext(key));
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`Context ${key} must be a positive number, got ${String(app.node.tryGetContext(key))}`);
    return value;
  };
  const retentionDays = positiveInteger('retentionDays', DEFAULT_RETENTION_DAYS);
  const media = mediaSettingsFromContext(app.node);
  const stack = new VoiceAgentPlatformApiStack(app, STACK_NAME, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Voice agent platform public REST API',
    stageName,
    retentionDays,
    reserveConcurrency: String(app.node.tryGetContext('reserveConcurrency') ?? 'true') !== 'false',
    media,
    settings: {
      mediaStreamUrl: text('mediaStreamUrl'),
      defaultCallerId: text('defaultCallerId'),
      telephonyRegulatoryEmail: text('telephonyRegulatoryEmail'),
      ...(app.node.tryGetContext('telephonyCallsPerSecond') === undefined
        ? {}
        : { telephonyCallsPerSecond: positiveNumber('telephonyCallsPerSecond') }),
      ...(app.node.tryGetContext('llmApiUrl') === undefined ? {} : { llmApiUrl: text('llmApiUrl') }),
      ...(app.node.tryGetContext('llmModel') === undefined ? {} : { llmModel: text('llmModel') }),
      // One call length for the functions (watchdog) and the media service (deregistration delay).
      maxCallSeconds: media.maxCallSeconds,
    },
  });
  // cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails synthesis.
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
  return { app, stack };
}
