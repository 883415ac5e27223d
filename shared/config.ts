/**
 * Runtime configuration read from the environment. The same variables are set by the CDK stack on
 * AWS and by the local stack (`local/`), so handler code never branches on where it runs.
 * Service endpoints are not configured here: the AWS SDK reads `AWS_ENDPOINT_URL_<SERVICE>` itself.
 */
export interface AppConfig {
  tableName: string;
  bucketName: string;
  /** s3rver and LocalStack serve buckets by path, not by virtual host. */
  s3ForcePathStyle: boolean;
  /** Public base URL of the API (ends in /api/v1); used to build links. Empty when unknown. */
  publicBaseUrl: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

export function loadConfig(): AppConfig {
  return {
    tableName: required('TABLE_NAME'),
    bucketName: process.env.BUCKET_NAME ?? '',
    s3ForcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
    publicBaseUrl: process.env.PUBLIC_BASE_URL ?? '',
  };
}

/**
 * Outbound fetches of customer-chosen URLs (shared/net/guarded-fetch.ts) may reach loopback
 * (127.0.0.0/8, ::1) and use plain http only where the local stack or the tests set
 * `OUTBOUND_ALLOW_LOOPBACK=true`, to reach their simulators. The CDK stack never sets it.
 */
export const outboundAllowsLoopback = (): boolean => process.env.OUTBOUND_ALLOW_LOOPBACK === 'true';
