/**
 * The spreadsheet consent as a browser goes through it, over HTTP: start it with a PKCE pair, read
 * the local provider's consent screen, press Allow, and take the code and state from the redirect.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { apiClient } from './api.ts';

export const CONSOLE_REDIRECT = 'https://app.example.com/oauth';

export function pkcePair() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The provider's answer to Allow (or Cancel) on the consent screen of `authorizationUrl`. */
export async function consentAnswer(authorizationUrl: string, decision: 'allow' | 'deny' = 'allow') {
  const screen = await fetch(authorizationUrl);
  expect(screen.status).toBe(200);
  expect(await screen.text()).toContain('Allow');
  const consent = new URL(authorizationUrl);
  const answer = await fetch(new URL('/o/oauth2/v2/auth/approve', consent.origin), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...consent.searchParams, ['decision', decision]]),
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

/** A connection made the whole way: started, consented, completed with the state and verifier. */
export async function connectSheets(api: ReturnType<typeof apiClient>, key: string) {
  const { verifier, challenge } = pkcePair();
  const started = await api.request('POST', '/integrations/consents', {
    key,
    body: { provider: 'google-sheets', redirect_uri: CONSOLE_REDIRECT, code_challenge: challenge },
  });
  expect(started.status).toBe(201);
  const back = await consentAnswer(started.body.authorization_url);
  return api.request('POST', '/integrations', {
    key,
    body: {
      provider: 'google-sheets',
      authorization_code: back.searchParams.get('code'),
      redirect_uri: CONSOLE_REDIRECT,
      state: back.searchParams.get('state'),
      code_verifier: verifier,
    },
  });
}
