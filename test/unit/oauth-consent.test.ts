import { describe, expect, it } from 'vitest';
import {
  consentRefusal,
  consentUrl,
  pickerAppId,
  s256Challenge,
  type PendingConsent,
} from '../../shared/domain/oauth-consent.ts';

// A verifier and its S256 challenge (computed with `openssl dgst -sha256 -binary | base64`, made URL-safe).
const VERIFIER = 'dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc';
const NOW = new Date('2026-11-26T12:00:00.000Z');
const pending: PendingConsent = {
  provider: 'google-sheets',
  redirect_uri: 'https://console.example.com/console/',
  code_challenge: CHALLENGE,
  expires_at: '2026-11-26T12:05:00.000Z',
};
const answer = { redirect_uri: pending.redirect_uri, code_verifier: VERIFIER };

describe('an OAuth consent', () => {
  it('computes the S256 challenge (RFC 7636: base64url of SHA-256, no padding)', () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });

  it.each([
    ['the rightful answer', pending, answer, NOW, undefined],
    ['an unknown or used state', undefined, answer, NOW, /unknown or was already used/],
    ['an expired consent', pending, answer, new Date('2026-11-26T12:05:00.000Z'), /expired/],
    ['another redirect URI', pending, { ...answer, redirect_uri: 'https://evil.example.com/' }, NOW, /redirect_uri/],
    ['another verifier', pending, { ...answer, code_verifier: `${VERIFIER}x` }, NOW, /code_verifier/],
  ] as const)('%s', (_name, consent, given, now, refusal) => {
    const result = consentRefusal(consent, given, now);
    if (refusal === undefined) expect(result).toBeUndefined();
    else expect(result).toMatch(refusal);
  });

  it("builds Google's consent URL: offline access, the consent screen, PKCE S256, the state", () => {
    const url = new URL(
      consentUrl('https://accounts.google.com/o/oauth2/v2/auth', {
        clientId: '42-abc.apps.googleusercontent.com',
        redirectUri: pending.redirect_uri,
        state: 'the-state',
        codeChallenge: CHALLENGE,
      }),
    );
    expect(url.origin + url.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: '42-abc.apps.googleusercontent.com',
      redirect_uri: pending.redirect_uri,
      response_type: 'code',
      scope:
        'openid email https://www.googleapis.com/auth/spreadsheets.readonly https://www.googleapis.com/auth/drive.file',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 'the-state',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
  });

  it.each([
    ['123456789012-abc.apps.googleusercontent.com', '123456789012'],
    ['local', null],
  ])("takes the Picker's app id from the client id %s", (clientId, appId) => {
    expect(pickerAppId(clientId)).toBe(appId);
  });
});
