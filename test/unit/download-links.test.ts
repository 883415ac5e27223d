import { describe, expect, it } from 'vitest';
import { createDownloadToken, verifyDownloadToken } from '../../shared/domain/download-links.ts';

const SECRET = 'test-secret';
const grant = { key: 'org/1/agents/2/runs/3/recording.wav', contentType: 'audio/wav', expiresAt: 1_000 };

describe('download tokens', () => {
  const token = createDownloadToken(SECRET, grant);

  it.each([
    ['valid before expiry', token, 999, { valid: true, grant }],
    ['expired at the expiry second', token, 1_000, { valid: false, reason: 'expired' }],
    ['signed with another secret', createDownloadToken('other', grant), 0, { valid: false, reason: 'bad_signature' }],
    [
      'payload altered (longer lifetime)',
      `${Buffer.from(JSON.stringify({ k: grant.key, t: grant.contentType, e: 9_999 })).toString('base64url')}.${token.split('.')[1]}`,
      0,
      { valid: false, reason: 'bad_signature' },
    ],
    ['signature altered', `${token.slice(0, -2)}xx`, 0, { valid: false, reason: 'bad_signature' }],
    ['no signature', token.split('.')[0]!, 0, { valid: false, reason: 'malformed' }],
    ['extra part', `${token}.x`, 0, { valid: false, reason: 'malformed' }],
  ])('%s', (_name, candidate, now, expected) => {
    expect(verifyDownloadToken(SECRET, candidate, now)).toEqual(expected);
  });
});
