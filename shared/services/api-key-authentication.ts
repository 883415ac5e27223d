import { parseApiKey, secretMatches } from '../domain/api-key-format.ts';
import * as apiKeys from '../repositories/api-keys.ts';
import * as organizations from '../repositories/organizations.ts';

/** What the authorizer needs (kept apart from the operator's organization service and its API Gateway client). */
export interface Caller {
  organizationId: number;
  keyId: string;
  /** The organization is suspended: the key is genuine but refused. */
  suspended: boolean;
  /** The organization's usage-plan key (undefined for an organization not yet set up). */
  usagePlanKey?: string;
}

/**
 * The caller behind a presented key, or undefined for a malformed, unknown or revoked key, or a
 * key whose organization no longer exists.
 */
export async function authenticateApiKey(key: string): Promise<Caller | undefined> {
  const parsed = parseApiKey(key);
  if (!parsed) return undefined;
  const record = await apiKeys.getApiKey(parsed.keyId);
  if (!record || record.revokedAt || !secretMatches(parsed.secret, record.secretHash)) return undefined;
  const organization = await organizations.getOrganization(record.organizationId);
  if (!organization) return undefined;
  return {
    organizationId: record.organizationId,
    keyId: record.keyId,
    suspended: Boolean(organization.suspendedAt),
    usagePlanKey: organization.usagePlanKey,
  };
}
