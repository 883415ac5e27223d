import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A random secret for a local service. With a data folder it is kept there, so links signed before
 * a restart still verify after it; without, it lives as long as the process.
 */
export function localSecret(dataDir: string | undefined, name: string): string {
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'secrets.json');
  const secrets = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  if (!secrets[name]) {
    secrets[name] = randomBytes(32).toString('base64url');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets[name];
}
