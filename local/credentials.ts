import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_DATA_DIR } from './paths.ts';

const CREDENTIALS_FILE = join(LOCAL_DATA_DIR, 'local-credentials.json');

interface LocalCredentials {
  organizationId: number;
  apiKey: string;
}

/**
 * The development organization and API key of the local stack: created on the first `npm start`,
 * reused while the data folder lives, so scripts keep working across restarts. A key that no longer
 * authenticates (revoked with the CLI) is replaced by a new one for the same organization.
 */
export async function ensureLocalCredentials(): Promise<LocalCredentials> {
  const organizations = await import('../shared/services/organizations.ts');
  const { authenticateApiKey } = await import('../shared/services/api-key-authentication.ts');
  if (existsSync(CREDENTIALS_FILE)) {
    const saved = JSON.parse(readFileSync(CREDENTIALS_FILE, 'utf8')) as LocalCredentials;
    const caller = await authenticateApiKey(saved.apiKey);
    // Created before per-organization throttling: give it its usage-plan key.
    if (caller && !caller.usagePlanKey) await organizations.ensureUsagePlanKey(caller.organizationId);
    if (caller) return saved;
    const replacement = await organizations.createApiKey(saved.organizationId).catch(() => undefined);
    if (replacement) return save({ organizationId: saved.organizationId, apiKey: replacement.key });
  }
  const { organization, apiKey } = await organizations.createOrganization({ name: 'Local development' });
  return save({ organizationId: organization.id, apiKey: apiKey.key });
}

function save(credentials: LocalCredentials): LocalCredentials {
  writeFileSync(CREDENTIALS_FILE, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return credentials;
}
