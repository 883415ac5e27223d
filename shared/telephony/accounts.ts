import { reuseFor } from '../caching/reuse-for.ts';
import { getSecretJson, SECRET_PLACEHOLDER, SecretNotReadyError } from '../config/secrets.ts';
import { optionalSetting } from '../config/settings.ts';
import { decryptSecret } from '../crypto/secret-box.ts';
import { DomainError } from '../domain/errors.ts';
import { getTelephonyConfig } from '../repositories/telephony-configs.ts';
import { TelephonyCredentials } from '../schemas/telephony.ts';
import type { TelephonyAdapter } from './adapter.ts';

/**
 * Which provider account carries an organization's calls: its own (`/telephony-configs`, stored
 * encrypted) or else the platform's. Settings:
 *   TELEPHONY_SECRET_ARN         the platform account's credentials (JSON secret, read at run time)
 *   TELEPHONY_CALLS_PER_SECOND   the platform account's outbound call rate at the provider (default 1)
 *   TWILIO_API_BASE_URL, TELNYX_API_BASE_URL   local stack only: the local Twilio and Telnyx
 *   DEFAULT_CALLER_ID            the platform account's caller id, for agents without an outbound number
 */
export interface TelephonyAccount {
  adapter: TelephonyAdapter;
  /** `<provider>:<account id>`: rate limits are per account, whoever uses it. */
  key: string;
  callsPerSecond: number;
  callerId: string | null;
  owner: 'platform' | 'organization';
}

export const TELEPHONY_SECRET_ARN = 'TELEPHONY_SECRET_ARN';

/**
 * The platform's provider account is not usable yet (the secret still holds the first deploy's
 * placeholder, or not a valid account): a 503 naming the secret to fill in.
 */
export class TelephonyUnavailableError extends DomainError {
  readonly kind = 'unavailable';
}

/** Encryption context of an organization's telephony credentials. */
export const telephonyCredentialsContext = (orgId: number) => ({
  organization_id: String(orgId),
  purpose: 'telephony-credentials',
});

/**
 * The adapter of the credentials' provider. Its module (and SDK, megabytes) loads on first use:
 * a function whose accounts are all on one provider never loads the other's.
 */
export async function adapterFor(credentials: TelephonyCredentials): Promise<TelephonyAdapter> {
  return credentials.provider === 'twilio'
    ? (await import('./twilio.ts')).twilioAdapter(credentials, { apiBaseUrl: optionalSetting('TWILIO_API_BASE_URL') })
    : (await import('./telnyx.ts')).telnyxAdapter(credentials, { apiBaseUrl: optionalSetting('TELNYX_API_BASE_URL') });
}

const account = (
  adapter: TelephonyAdapter,
  callsPerSecond: number,
  callerId: string | null,
  owner: TelephonyAccount['owner'],
): TelephonyAccount => ({
  adapter,
  key: `${adapter.provider}:${adapter.accountId}`,
  callsPerSecond,
  callerId,
  owner,
});

const SECRET_SHAPES =
  '{"provider":"twilio","account_sid":"AC…","auth_token":"…"} or {"provider":"telnyx","api_key":"…","public_key":"…","connection_id":"…"}';

function notConfigured(problem: string): TelephonyUnavailableError {
  const arn = optionalSetting(TELEPHONY_SECRET_ARN) ?? TELEPHONY_SECRET_ARN;
  return new TelephonyUnavailableError(
    `The platform's telephony account is not configured (${problem}): put ${SECRET_SHAPES} into the secret ${arn} (README, Deploying to AWS), or set the organization's own account with PUT /telephony-configs`,
  );
}

/** The last secret value read, and its account: the adapter is rebuilt only when the secret changes. */
let platform: { raw: string; account: TelephonyAccount } | undefined;

/**
 * The platform's own account, from its secret (read at run time, cached). A secret still holding
 * the first deploy's placeholder, or not a valid account, is a TelephonyUnavailableError (503).
 */
export async function platformAccount(): Promise<TelephonyAccount> {
  let secret: Record<string, unknown>;
  try {
    secret = await getSecretJson(TELEPHONY_SECRET_ARN);
  } catch (error) {
    if (error instanceof SecretNotReadyError) throw notConfigured('the secret is empty or not a JSON object');
    throw error;
  }
  const raw = JSON.stringify(secret);
  if (platform?.raw !== raw) {
    if (Object.values(secret).includes(SECRET_PLACEHOLDER)) throw notConfigured('it still holds the placeholder');
    const parsed = TelephonyCredentials.safeParse(secret);
    if (!parsed.success)
      throw notConfigured(
        parsed.error.issues.map((issue) => `${issue.path.join('.') || 'provider'}: ${issue.message}`).join('; '),
      );
    const rate = Number(optionalSetting('TELEPHONY_CALLS_PER_SECOND') ?? 1);
    platform = {
      raw,
      account: account(
        await adapterFor(parsed.data),
        rate > 0 ? rate : 1,
        optionalSetting('DEFAULT_CALLER_ID') ?? null,
        'platform',
      ),
    };
  }
  return platform.account;
}

/**
 * How long a function keeps an organization's account once read and decrypted: dials and provider
 * callbacks then cost no table read or KMS call, and a change to `/telephony-configs` reaches calls
 * within this time.
 */
export const ACCOUNT_CACHE_SECONDS = 30;
const MAX_CACHED_ACCOUNTS = 1000;

/** The account an organization's calls go through (a failed read is not kept: the next call reads again). */
export const accountOf = reuseFor(ACCOUNT_CACHE_SECONDS * 1000, readAccount, MAX_CACHED_ACCOUNTS);

async function readAccount(orgId: number): Promise<TelephonyAccount> {
  const config = await getTelephonyConfig(orgId);
  if (!config) return await platformAccount();
  const credentials = TelephonyCredentials.parse(
    JSON.parse(await decryptSecret(config.credentials_ciphertext, telephonyCredentialsContext(orgId))),
  );
  return account(await adapterFor(credentials), config.calls_per_second, config.caller_id, 'organization');
}
