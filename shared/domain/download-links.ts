import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a download link grants: one stored file, until `expiresAt` (epoch seconds). */
export interface DownloadGrant {
  key: string;
  contentType: string;
  expiresAt: number;
}

const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/**
 * A download token: the grant in base64url JSON, a dot, its HMAC-SHA256. The link is ours, not an
 * S3 presigned URL, so it lives as long as it says (up to 24 h) whatever the lifetime of the
 * Lambda role's temporary credentials; following it redirects to a presigned URL valid a minute.
 */
export function createDownloadToken(secret: string, grant: DownloadGrant): string {
  const payload = Buffer.from(JSON.stringify({ k: grant.key, t: grant.contentType, e: grant.expiresAt })).toString(
    'base64url',
  );
  return `${payload}.${sign(secret, payload)}`;
}

export type TokenCheck =
  { valid: true; grant: DownloadGrant } | { valid: false; reason: 'malformed' | 'bad_signature' | 'expired' };

export function verifyDownloadToken(secret: string, token: string, nowSeconds: number): TokenCheck {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { valid: false, reason: 'malformed' };
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { valid: false, reason: 'bad_signature' };
  let decoded: { k?: unknown; t?: unknown; e?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof decoded;
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  if (typeof decoded.k !== 'string' || typeof decoded.t !== 'string' || typeof decoded.e !== 'number')
    return { valid: false, reason: 'malformed' };
  if (decoded.e <= nowSeconds) return { valid: false, reason: 'expired' };
  return { valid: true, grant: { key: decoded.k, contentType: decoded.t, expiresAt: decoded.e } };
}
