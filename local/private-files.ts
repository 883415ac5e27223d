import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The local data folder holds API keys, the local encryption key and customers' test data: only
 * its owner may read it. Files created from now on by this process and its children (DynamoDB
 * Local, s3rver) are 0600 and folders 0700 (umask 077); what earlier runs left is set so too.
 */
export function keepLocalDataPrivate(dataDir: string): void {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const restrict = (path: string, isDirectory: boolean) => {
    chmodSync(path, isDirectory ? 0o700 : 0o600);
    if (!isDirectory) return;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory() || entry.isFile()) restrict(join(path, entry.name), entry.isDirectory());
    }
  };
  restrict(dataDir, true);
}
