import { startLocalSecretsManager, type LocalSecretsManager } from '../../local/secrets-manager.ts';

/**
 * The local stand-in of Secrets Manager with `secrets`, and this process's SDK pointed at it, as
 * the media task reads its secrets (Powertools Parameters) on AWS.
 */
export async function useLocalSecretsManager(secrets: Record<string, string>): Promise<LocalSecretsManager> {
  const secretsManager = await startLocalSecretsManager({ region: 'us-east-1', secrets });
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
  });
  return secretsManager;
}
