import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The per-call credential of a media stream: `<expiresAtSeconds>.<base64url HMAC-SHA256>` over the
 * run reference and the expiry, keyed with MEDIA_STREAM_SECRET (shared by the functions that dial
 * and the media service). The provider hands it back as a stream parameter; the media service
 * accepts a stream only with a token minted for that very run and not yet expired.
 */
export const MEDIA_STREAM_SECRET_VARIABLE = 'MEDIA_STREAM_SECRET';

function secret(): string {
  const value = process.env[MEDIA_STREAM_SECRET_VARIABLE];
  if (!value) throw new Error(`Missing required environment variable ${MEDIA_STREAM_SECRET_VARIABLE}`);
  return value;
}

const mac = (key: string, runRef: string, expiresAt: number): string =>
  createHmac('sha256', key).update(`${runRef}\n${expiresAt}`).digest('base64url');

/** A token valid for `ttlSeconds` (ringing plus the longest answer delay a provider allows). */
export function mintStreamToken(runRef: string, ttlSeconds: number, now = Date.now()): string {
  const expiresAt = Math.floor(now / 1000) + ttlSeconds;
  return `${expiresAt}.${mac(secret(), runRef, expiresAt)}`;
}

export type StreamTokenCheck = 'valid' | 'malformed' | 'expired' | 'wrong_run';

export function checkStreamToken(runRef: string, token: unknown, now = Date.now()): StreamTokenCheck {
  if (typeof token !== 'string' || token.length > 200) return 'malformed';
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return 'malformed';
  const expiresAt = Number(match[1]);
  const expected = Buffer.from(mac(secret(), runRef, expiresAt));
  const given = Buffer.from(match[2]!);
  // A token of another run fails here: the run reference is inside the MAC.
  if (!timingSafeEqual(expected, given)) return 'wrong_run';
  return expiresAt * 1000 < now ? 'expired' : 'valid';
}
