import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_RETENTION_DAYS } from './constructs/data.ts';
import { REPO_ROOT } from './paths.ts';
import { VoiceAgentPlatformApiStack } from './stack.ts';

export const STACK_NAME = 'VoiceAgentPlatformApi';

/**
 * Builds the app with its one stack and the cdk-nag AwsSolutions pack. Shared by `infra/app.ts`
 * and the infra test so both synthesize exactly the same thing.
 */
export function createApp(options: { context?: Record<string, unknown> } = {}) {
  // cdk.json context (feature flags) as defaults, so tests synthesize what the CLI does; -c still wins.
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const app = new App({ context: { ...cdkJson.context, ...options.context } });
  // `-c` values arrive as strings, cdk.json values as JSON: accept both.
  const stageName = String(app.node.tryGetContext('stageName') ?? 'prod');
  const retentionDays = Number(app.node.tryGetContext('retentionDays') ?? DEFAULT_RETENTION_DAYS);
  if (!Number.isInteger(retentionDays) || retentionDays < 1) {
    throw new Error(`Context retentionDays must be a positive integer, got ${String(retentionDays)}`);
  }
  const stack = new VoiceAgentPlatformApiStack(app, STACK_NAME, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Voice agent platform public REST API',
    stageName,
    retentionDays,
    mediaStreamUrl: String(app.node.tryGetContext('mediaStreamUrl') ?? ''),
    defaultCallerId: String(app.node.tryGetContext('defaultCallerId') ?? ''),
    telephonyCallsPerSecond: Number(app.node.tryGetContext('telephonyCallsPerSecond') ?? 1),
    telephonyRegulatoryEmail: String(app.node.tryGetContext('telephonyRegulatoryEmail') ?? ''),
  });
  // cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails synthesis.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
