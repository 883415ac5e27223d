/**
 * `npm run test:localstack` (opt-in, not part of `npm test`): deploys the CDK stack to a running
 * LocalStack with aws-cdk-local, then runs the HTTP integration tests against the deployed API.
 *
 *   LOCALSTACK_ENDPOINT   LocalStack edge URL (default http://localhost:4566)
 *
 * Needs LocalStack running (Docker); on a machine without it, it says so and exits with code 2.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../local/paths.ts';

const endpoint = (process.env.LOCALSTACK_ENDPOINT ?? 'http://localhost:4566').replace(/\/$/, '');
const STACK_NAME = 'VoiceAgentPlatformApi';
const outputsFile = join(REPO_ROOT, 'cdk.out', 'localstack-outputs.json');

async function localStackIsRunning(): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/_localstack/health`, { signal: AbortSignal.timeout(3000) });
    return response.ok;
  } catch {
    return false;
  }
}

if (!(await localStackIsRunning())) {
  console.error(
    `LocalStack is not answering at ${endpoint}.\n` +
      'Start it first (e.g. `docker run --rm -p 4566:4566 -v /var/run/docker.sock:/var/run/docker.sock localstack/localstack`),\n' +
      'or set LOCALSTACK_ENDPOINT. This suite is opt-in; `npm test` runs the same HTTP tests against the local emulators.',
  );
  process.exit(2);
}

const env = {
  ...process.env,
  AWS_ENDPOINT_URL: endpoint,
  AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'test',
  AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'test',
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  AWS_DEFAULT_REGION: process.env.AWS_REGION ?? 'us-east-1',
  // Short authorizer cache, so the revocation test does not wait a minute.
  AUTHORIZER_CACHE_TTL_SECONDS: '1',
};
const run = (command: string, args: string[], extraEnv: Record<string, string> = {}) =>
  execFileSync(command, args, { cwd: REPO_ROOT, stdio: 'inherit', env: { ...env, ...extraEnv } });

run('npx', ['cdklocal', 'bootstrap']);
// LocalStack does not check the media certificate; these only satisfy the stack's required media settings.
const mediaContext = [
  '-c',
  'mediaDomainName=media.localhost.localstack.cloud',
  '-c',
  'mediaCertificateArn=arn:aws:acm:us-east-1:000000000000:certificate/localstack',
];
run('npx', [
  'cdklocal',
  'deploy',
  STACK_NAME,
  ...mediaContext,
  '--require-approval',
  'never',
  '--outputs-file',
  outputsFile,
]);

const outputs = (JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>)[STACK_NAME]!;
console.log(`Deployed: ${outputs.ApiUrl}`);
run('npx', ['vitest', 'run', '--project', 'integration'], {
  API_BASE_URL: outputs.ApiUrl!,
  TABLE_NAME: outputs.TableName!,
  BUCKET_NAME: outputs.BucketName!,
  S3_FORCE_PATH_STYLE: 'true',
  // Organizations get their usage-plan key and revocations flush the authorizer cache, as with the CLI.
  REST_API_ID: outputs.RestApiId!,
  API_STAGE_NAME: outputs.StageName!,
  USAGE_PLAN_ID: outputs.UsagePlanId!,
});
