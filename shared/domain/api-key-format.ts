import { createHash, timingSafeEqual } from 'node:crypto';
import { randomAlphanumeric } from './ids.ts';

/**
 * API keys look like `vap_<16 id chars>_<40 secret chars>`. The id part names the stored record
 * (so lookup is one GetItem, and logs can say which key without revealing it); the secret part
 * (~238 bits) is only ever stored as its SHA-256. A fast hash is right for high-entropy secrets.
 */
const KEY_PATTERN = /^vap_([A-Za-z0-9]{16})_([A-Za-z0-9]{40})$/;

export interface GeneratedApiKey {
  keyId: string;
  key: string;
  secretHash: string;
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function generateApiKey(): GeneratedApiKey {
  const idPart = randomAlphanumeric(16);
  const secret = randomAlphanumeric(40);
  return { keyId: `key_${idPart}`, key: `vap_${idPart}_${secret}`, secretHash: hashSecret(secret) };
}

/** Splits a presented key into its record id and secret; undefined when it is not a key at all. */
export function parseApiKey(key: string): { keyId: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(key.trim());
  if (!match) return undefined;
  return { keyId: `key_${match[1]}`, secret: match[2]! };
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
