import { optionalSetting, requiredSetting } from './config/settings.ts';

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

/**
 * Each field is read when used, so a function reads only the settings it uses (shared/config/
 * settings.ts); a missing one fails with its name. One object serves every call (`tableName()`
 * asks for it once per item a request names: a new object with four accessors each time was waste).
 */
const CONFIG: AppConfig = {
  get tableName() {
    return requiredSetting('TABLE_NAME');
  },
  get bucketName() {
    return requiredSetting('BUCKET_NAME');
  },
  get s3ForcePathStyle() {
    return optionalSetting('S3_FORCE_PATH_STYLE') === 'true';
  },
  get publicBaseUrl() {
    return optionalSetting('PUBLIC_BASE_URL') ?? '';
  },
};

export function loadConfig(): AppConfig {
  return CONFIG;
}

/**
 * Outbound fetches of customer-chosen URLs (shared/net/guarded-fetch.ts) may reach loopback
 * (127.0.0.0/8, ::1) and use plain http only where the local stack or the tests set
 * `OUTBOUND_ALLOW_LOOPBACK=true`, to reach their simulators. The CDK stack never sets it.
 */
export const outboundAllowsLoopback = (): boolean => process.env.OUTBOUND_ALLOW_LOOPBACK === 'true';
