import { decryptSecret } from '../crypto/secret-box.ts';
import { getTelephonyConfig } from '../repositories/telephony-configs.ts';
import { TelephonyCredentials } from '../schemas/telephony.ts';
import type { TelephonyAdapter } from './adapter.ts';
import { telnyxAdapter } from './telnyx.ts';
import { twilioAdapter } from './twilio.ts';

/**
 * Which provider account carries an organization's calls: its own (`/telephony-configs`, stored
 * encrypted) or else the platform's. Settings:
 *   TELEPHONY_ACCOUNT            the platform account's credentials (JSON, the stack's telephony secret)
 *   TELEPHONY_CALLS_PER_SECOND   the platform account's outbound call rate at the provider (default 1)
 *   TELEPHONY_API_BASE_URL       optional: the provider API's origin (unset: the provider's public API)
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

export const TELEPHONY_ACCOUNT_VARIABLE = 'TELEPHONY_ACCOUNT';

/** Encryption context of an organization's telephony credentials. */
export const telephonyCredentialsContext = (orgId: number) => ({
  organization_id: String(orgId),
  purpose: 'telephony-credentials',
});

export function adapterFor(credentials: TelephonyCredentials): TelephonyAdapter {
  const apiBaseUrl = process.env.TELEPHONY_API_BASE_URL || undefined;
  return credentials.provider === 'twilio'
    ? twilioAdapter(credentials, { apiBaseUrl })
    : telnyxAdapter(credentials, { apiBaseUrl });
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

let platform: { raw: string; account: TelephonyAccount } | undefined;

/** The platform's own account; a stack without it fails loudly, naming the setting. */
export function platformAccount(): TelephonyAccount {
  const raw = process.env[TELEPHONY_ACCOUNT_VARIABLE];
  if (!raw)
    throw new Error(
      `Missing required environment variable ${TELEPHONY_ACCOUNT_VARIABLE} (the platform's telephony provider credentials)`,
    );
  if (platform?.raw !== raw) {
    let parsed: ReturnType<typeof TelephonyCredentials.safeParse>;
    try {
      parsed = TelephonyCredentials.safeParse(JSON.parse(raw));
    } catch {
      throw new Error(`${TELEPHONY_ACCOUNT_VARIABLE} is not JSON`);
    }
    if (!parsed.success)
      throw new Error(
        `${TELEPHONY_ACCOUNT_VARIABLE} is not a valid provider account: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
      );
    const rate = Number(process.env.TELEPHONY_CALLS_PER_SECOND ?? 1);
    platform = {
      raw,
      account: account(adapterFor(parsed.data), rate > 0 ? rate : 1, process.env.DEFAULT_CALLER_ID || null, 'platform'),
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
const cachedAccounts = new Map<number, { readAt: number; account: Promise<TelephonyAccount> }>();
const MAX_CACHED_ACCOUNTS = 1000;

/** The account an organization's calls go through. */
export function accountOf(orgId: number, now = Date.now): Promise<TelephonyAccount> {
  const cached = cachedAccounts.get(orgId);
  if (cached && now() - cached.readAt < ACCOUNT_CACHE_SECONDS * 1000) return cached.account;
  const account = readAccount(orgId);
  cachedAccounts.delete(orgId);
  cachedAccounts.set(orgId, { readAt: now(), account });
  account.catch(() => cachedAccounts.delete(orgId));
  if (cachedAccounts.size > MAX_CACHED_ACCOUNTS) cachedAccounts.delete(cachedAccounts.keys().next().value!);
  return account;
}

async function readAccount(orgId: number): Promise<TelephonyAccount> {
  const config = await getTelephonyConfig(orgId);
  if (!config) return platformAccount();
  const credentials = TelephonyCredentials.parse(
    JSON.parse(await decryptSecret(config.credentials_ciphertext, telephonyCredentialsContext(orgId))),
  );
  return account(adapterFor(credentials), config.calls_per_second, config.caller_id, 'organization');
}
