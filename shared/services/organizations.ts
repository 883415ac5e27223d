import { generateApiKey, parseApiKey, secretMatches } from '../domain/api-key-format.ts';
import { NotFoundError } from '../domain/errors.ts';
import * as apiKeys from '../repositories/api-keys.ts';
import { nextId } from '../repositories/counters.ts';
import * as organizations from '../repositories/organizations.ts';

/** Default channel capacity of a new organization (concurrent outbound calls). */
export const DEFAULT_MAX_CONCURRENT_CALLS = 10;

export interface CreatedApiKey {
  id: string;
  /** The full key: shown once, never stored. */
  key: string;
  createdAt: string;
}

export interface ApiKeySummary {
  id: string;
  organizationId: number;
  createdAt: string;
  revokedAt: string | null;
}

export async function createApiKey(organizationId: number): Promise<CreatedApiKey> {
  if (!(await organizations.getOrganization(organizationId))) {
    throw new NotFoundError(`Organization ${organizationId} not found`);
  }
  const generated = generateApiKey();
  const createdAt = new Date().toISOString();
  await apiKeys.putApiKey({ keyId: generated.keyId, organizationId, secretHash: generated.secretHash, createdAt });
  return { id: generated.keyId, key: generated.key, createdAt };
}

export async function createOrganization(input: { name: string; maxConcurrentCalls?: number }) {
  const organization: organizations.OrganizationRecord = {
    id: await nextId('organization'),
    name: input.name,
    maxConcurrentCalls: input.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
    createdAt: new Date().toISOString(),
  };
  await organizations.putOrganization(organization);
  const apiKey = await createApiKey(organization.id);
  return { organization, apiKey };
}

export async function revokeApiKey(keyId: string): Promise<void> {
  if (!(await apiKeys.revokeApiKey(keyId, new Date().toISOString()))) {
    throw new NotFoundError(`API key ${keyId} not found`);
  }
}

export async function listApiKeys(organizationId: number): Promise<ApiKeySummary[]> {
  const records = await apiKeys.listApiKeys(organizationId);
  return records.map((record) => ({
    id: record.keyId,
    organizationId: record.organizationId,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt ?? null,
  }));
}

/** The caller behind a presented key, or undefined for a malformed, unknown or revoked key. */
export async function authenticateApiKey(key: string): Promise<{ organizationId: number; keyId: string } | undefined> {
  const parsed = parseApiKey(key);
  if (!parsed) return undefined;
  const record = await apiKeys.getApiKey(parsed.keyId);
  if (!record || record.revokedAt || !secretMatches(parsed.secret, record.secretHash)) return undefined;
  return { organizationId: record.organizationId, keyId: record.keyId };
}
