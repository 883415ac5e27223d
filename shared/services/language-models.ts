import { organizationModel, platformModel, type LanguageModel } from '../ai/language-model.ts';
import { decryptSecret } from '../crypto/secret-box.ts';
import * as modelKeys from '../repositories/model-keys.ts';

/** The encryption context of an organization's stored secrets. */
export const organizationContext = (orgId: number) => ({ organizationId: String(orgId) });

/** The organization's own model (its key), else the platform's (503 when that is not configured). */
export async function modelFor(orgId: number): Promise<{ model: LanguageModel; owner: 'organization' | 'platform' }> {
  const stored = await modelKeys.getModelKey(orgId);
  if (!stored) return { model: await platformModel(), owner: 'platform' };
  const apiKey = await decryptSecret(stored.api_key_ciphertext, organizationContext(orgId));
  return { model: organizationModel(stored, apiKey), owner: 'organization' };
}
