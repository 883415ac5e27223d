import { TransformParameterError } from '@aws-lambda-powertools/parameters/errors';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { requiredSetting, type SettingName } from './settings.ts';

/**
 * Secrets are read at run time from Secrets Manager (Powertools Parameters, cached per execution
 * environment), never baked into the environment at deploy: a value changed after deploy reaches
 * every function within the cache lifetime. The environment holds only the secret's ARN, given by
 * the stack to the functions that use it (shared/config/settings.ts). Locally the same code reads
 * the local stack's Secrets Manager stand-in (AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
export const SECRET_CACHE_SECONDS = 300;

export class SecretNotReadyError extends Error {
  override readonly name = 'SecretNotReadyError';
}

/** A string secret (e.g. a generated signing key). */
export async function getSecretString(arnSetting: SettingName): Promise<string> {
  const arn = requiredSetting(arnSetting);
  const value = await getSecret(arn, { maxAge: SECRET_CACHE_SECONDS });
  if (typeof value !== 'string' || !value)
    throw new SecretNotReadyError(`The secret in ${arnSetting} (${arn}) is empty: put its value in Secrets Manager`);
  return value;
}

/** A JSON-object secret, e.g. a provider's credentials. */
export async function getSecretJson(
  arnSetting: SettingName,
  options: { forceFetch?: boolean } = {},
): Promise<Record<string, unknown>> {
  const arn = requiredSetting(arnSetting);
  let value: unknown;
  try {
    value = await getSecret(arn, { maxAge: SECRET_CACHE_SECONDS, transform: 'json', forceFetch: options.forceFetch });
  } catch (error) {
    if (error instanceof TransformParameterError)
      throw new SecretNotReadyError(`The secret in ${arnSetting} (${arn}) is not JSON`);
    throw error;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new SecretNotReadyError(`The secret in ${arnSetting} (${arn}) must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Named string fields of a JSON secret. A field missing, empty or still holding the `set-me`
 * placeholder of the first deploy fails loudly, naming the secret and the field to fill in. A
 * cached copy missing a field is read again first, so a field the operator just filled in counts at
 * once rather than after the cache lifetime.
 */
export async function getSecretFields<const K extends string>(
  arnSetting: SettingName,
  fields: readonly K[],
): Promise<Record<K, string>> {
  const missingFrom = (secret: Record<string, unknown>) =>
    fields.filter(
      (field) => typeof secret[field] !== 'string' || !secret[field] || secret[field] === SECRET_PLACEHOLDER,
    );
  let secret = await getSecretJson(arnSetting);
  if (missingFrom(secret).length > 0) secret = await getSecretJson(arnSetting, { forceFetch: true });
  const missing = missingFrom(secret);
  if (missing.length > 0) {
    throw new SecretNotReadyError(
      `The secret in ${arnSetting} (${requiredSetting(arnSetting)}) has no value for ${missing.join(', ')}: put it in Secrets Manager (see README, Deploying to AWS)`,
    );
  }
  return Object.fromEntries(fields.map((field) => [field, secret[field] as string])) as Record<K, string>;
}

/** What the stack puts in a field an operator must fill in after the first deploy. */
export const SECRET_PLACEHOLDER = 'set-me';
