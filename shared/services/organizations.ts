import { generateApiKey } from '../domain/api-key-format.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import * as apiKeys from '../repositories/api-keys.ts';
import { nextId } from '../repositories/counters.ts';
import * as organizations from '../repositories/organizations.ts';
import { flushAuthorizerCache, newUsagePlanKey, registerUsagePlanKey } from './api-access.ts';

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
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

const DEFAULT_KEY_NAME = 'API key';

export async function createApiKey(organizationId: number, name = DEFAULT_KEY_NAME): Promise<CreatedApiKey> {
  if (!(await organizations.getOrganization(organizationId))) {
    throw new NotFoundError(`Organization ${organizationId} not found`);
  }
  const generated = generateApiKey();
  const createdAt = new Date().toISOString();
  await apiKeys.putApiKey({
    keyId: generated.keyId,
    organizationId,
    secretHash: generated.secretHash,
    createdAt,
    name,
  });
  return { id: generated.keyId, key: generated.key, createdAt };
}

/**
 * A new organization with its first API key. Its usage-plan key (per-organization throttling) is
 * registered with API Gateway before the organization is stored, so a stored organization always
 * has one; an interrupted creation leaves at most an unused key in the usage plan.
 */
export async function createOrganization(input: { name: string; maxConcurrentCalls?: number }) {
  const organization: organizations.OrganizationRecord = {
    id: await nextId('organization'),
    name: input.name,
    maxConcurrentCalls: input.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
    createdAt: new Date().toISOString(),
    usagePlanKey: newUsagePlanKey(),
  };
  await registerUsagePlanKey(organization.id, organization.usagePlanKey!);
  await organizations.putOrganization(organization);
  const apiKey = await createApiKey(organization.id);
  return { organization, apiKey };
}

/**
 * Revokes a key; it stops working at once (the authorizer cache is flushed). With `organizationId`
 * (the public API), only a key of that organization, and never `exceptKeyId` (the key making the
 * request: another key revokes it, so an organization keeps one).
 */
export async function revokeApiKey(
  keyId: string,
  scope?: { organizationId: number; exceptKeyId: string },
): Promise<void> {
  if (scope && keyId === scope.exceptKeyId)
    throw new ConflictError('A key cannot revoke itself: revoke it with another key of the organization');
  if (!(await apiKeys.revokeApiKey(keyId, new Date().toISOString(), scope?.organizationId))) {
    throw new NotFoundError(`API key ${keyId} not found`);
  }
  await flushAuthorizerCache();
}

/** Suspends (every key refused at once) or resumes an organization. */
export async function setOrganizationSuspended(organizationId: number, suspended: boolean): Promise<void> {
  if (!(await organizations.setSuspended(organizationId, suspended ? new Date().toISOString() : undefined))) {
    throw new NotFoundError(`Organization ${organizationId} not found`);
  }
  await flushAuthorizerCache();
}

/** Gives an organization created before per-organization throttling its usage-plan key (idempotent). */
export async function ensureUsagePlanKey(organizationId: number): Promise<void> {
  const organization = await organizations.getOrganization(organizationId);
  if (!organization) throw new NotFoundError(`Organization ${organizationId} not found`);
  const value = organization.usagePlanKey ?? newUsagePlanKey();
  await registerUsagePlanKey(organizationId, value);
  if (!organization.usagePlanKey) await organizations.setUsagePlanKey(organizationId, value);
  await flushAuthorizerCache();
}

export async function listApiKeys(organizationId: number): Promise<ApiKeySummary[]> {
  const records = await apiKeys.listApiKeys(organizationId);
  return records.map((record) => ({
    id: record.keyId,
    organizationId: record.organizationId,
    name: record.name ?? DEFAULT_KEY_NAME,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt ?? null,
  }));
}

/** A key as the public API shows it: its name and the part of it that is not secret. */
export function publicApiKey(key: Pick<ApiKeySummary, 'id' | 'name' | 'createdAt' | 'revokedAt'>) {
  return {
    id: key.id,
    name: key.name,
    key_prefix: `vap_${key.id.slice('key_'.length)}_…`,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
  };
}
