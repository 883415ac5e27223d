import { decryptSecret, encryptSecret } from '../crypto/secret-box.ts';
import { BadRequestError, NotFoundError } from '../domain/errors.ts';
import * as speechKeys from '../repositories/speech-keys.ts';
import type { SpeechProvider } from '../domain/speech-providers.ts';
import { assertPublicUrl } from './public-urls.ts';

/** Speech keys are encrypted like the model key, bound to their organization and provider. */
const context = (orgId: number, provider: string) => ({ organizationId: String(orgId), provider });

const status = ({ api_key_ciphertext: _sealed, ...record }: speechKeys.SpeechKeyRecord) => record;

export async function setSpeechKey(
  orgId: number,
  provider: SpeechProvider,
  request: { api_key: string; api_url?: string },
) {
  if (request.api_url && provider !== 'openai')
    throw new BadRequestError(`api_url applies to the openai provider only, not ${provider}`);
  // The media task sends the key to this URL at every utterance (through the guard again there).
  if (request.api_url) await assertPublicUrl(request.api_url, 'Speech API');
  const record: speechKeys.SpeechKeyRecord = {
    provider,
    api_url: request.api_url ?? null,
    api_key_ciphertext: await encryptSecret(request.api_key, context(orgId, provider)),
    key_last4: request.api_key.slice(-4),
    updated_at: new Date().toISOString(),
  };
  await speechKeys.putSpeechKey(orgId, record);
  return status(record);
}

export async function listSpeechKeys(orgId: number) {
  return { items: (await speechKeys.listSpeechKeys(orgId)).map(status) };
}

export async function clearSpeechKey(orgId: number, provider: SpeechProvider): Promise<void> {
  if (!(await speechKeys.deleteSpeechKey(orgId, provider))) throw new NotFoundError(`No ${provider} key is set`);
}

export type OrganizationSpeechKeys = Partial<Record<SpeechProvider, { apiKey: string; apiUrl: string | null }>>;

/** The organization's speech keys, decrypted, for a call (the media service). */
export async function organizationSpeechKeys(orgId: number): Promise<OrganizationSpeechKeys> {
  const records = await speechKeys.listSpeechKeys(orgId);
  const entries = await Promise.all(
    records.map(
      async (record) =>
        [
          record.provider,
          {
            apiKey: await decryptSecret(record.api_key_ciphertext, context(orgId, record.provider)),
            apiUrl: record.api_url,
          },
        ] as const,
    ),
  );
  return Object.fromEntries(entries);
}
