import { encryptSecret } from '../crypto/secret-box.ts';
import { NotFoundError } from '../domain/errors.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import * as repository from '../repositories/telephony-configs.ts';
import type { TelephonyCredentials } from '../schemas/telephony.ts';
import { ProviderError } from '../telephony/adapter.ts';

const invalid = (loc: ['body', ...string[]], message: string, input: unknown) =>
  new RequestValidationError([
    { type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx: { error: message } },
  ]);

const present = (record: repository.TelephonyConfigRecord) => ({
  provider: record.provider,
  account_id: record.account_id,
  caller_id: record.caller_id,
  calls_per_second: record.calls_per_second,
  updated_at: record.updated_at,
});

/**
 * Sets the organization's own provider account. The provider itself checks the credentials and
 * that the account owns the caller id before anything is stored.
 */
export async function putTelephonyConfig(
  orgId: number,
  request: { credentials: TelephonyCredentials; caller_id: string; calls_per_second: number },
) {
  // Loaded here, not with the module: the provider SDKs are a chunk only this request needs.
  const { adapterFor, telephonyCredentialsContext } = await import('../telephony/accounts.ts');
  const adapter = await adapterFor(request.credentials);
  let owned: boolean;
  try {
    owned = await adapter.numbers.ownsNumber(request.caller_id);
  } catch (error) {
    if (error instanceof ProviderError && (error.status === 401 || error.status === 403)) {
      throw invalid(['body', 'credentials'], `${request.credentials.provider} refused these credentials`, {
        provider: request.credentials.provider,
      });
    }
    throw error;
  }
  if (!owned)
    throw invalid(
      ['body', 'caller_id'],
      `the ${request.credentials.provider} account does not own ${request.caller_id}`,
      request.caller_id,
    );
  const record: repository.TelephonyConfigRecord = {
    provider: adapter.provider,
    account_id: adapter.accountId,
    credentials_ciphertext: await encryptSecret(
      JSON.stringify(request.credentials),
      telephonyCredentialsContext(orgId),
    ),
    caller_id: request.caller_id,
    calls_per_second: request.calls_per_second,
    updated_at: new Date().toISOString(),
  };
  await repository.putTelephonyConfig(orgId, record);
  return present(record);
}

export async function getTelephonyConfig(orgId: number) {
  const record = await repository.getTelephonyConfig(orgId);
  if (!record) throw new NotFoundError("No telephony config: the organization's calls use the platform's account");
  return present(record);
}

export async function deleteTelephonyConfig(orgId: number): Promise<void> {
  if (!(await repository.deleteTelephonyConfig(orgId)))
    throw new NotFoundError("No telephony config: the organization's calls use the platform's account");
}
