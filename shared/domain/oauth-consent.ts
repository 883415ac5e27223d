/**
 * The rules of an OAuth consent the console starts for an organization (RFC 6749 with PKCE,
 * RFC 7636, as Google's OAuth 2.0 for web server applications takes it): the consent URL, the
 * `state` that binds the answer to the organization, and the verifier that proves the code is
 * redeemed by the browser that started it. Pure: the caller stores and reads the state.
 */
import { createHash } from 'node:crypto';

/** A started consent is good for ten minutes (Google's own codes live about as long). */
export const CONSENT_SECONDS = 600;

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A consent's `state`: 32 random bytes, base64url. */
export const CONSENT_STATE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;
/** The S256 challenge: base64url of a SHA-256 digest, 43 characters. */
export const CODE_CHALLENGE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;

/** What the platform asks for: read the sheets the user picks, and who they are. */
export const SHEETS_SCOPES = [
  'openid',
  'email',
  'https://www.googleapis.com/auth/spreadsheets.readonly',
  'https://www.googleapis.com/auth/drive.file',
] as const;

export const s256Challenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

export interface PendingConsent {
  provider: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
}

export interface ConsentAnswer {
  redirect_uri: string;
  code_verifier: string;
}

/**
 * Why a consent's answer cannot complete it, or undefined when it can. The state has already been
 * taken (single use) when this is asked; `pending` is undefined when it was unknown or used.
 */
export function consentRefusal(
  pending: PendingConsent | undefined,
  answer: ConsentAnswer,
  now: Date,
): string | undefined {
  if (!pending) return 'The consent state is unknown or was already used: start the connection again';
  if (Date.parse(pending.expires_at) <= now.getTime()) return 'The consent has expired: start the connection again';
  if (pending.redirect_uri !== answer.redirect_uri) return 'redirect_uri differs from the one the consent started with';
  if (s256Challenge(answer.code_verifier) !== pending.code_challenge)
    return 'code_verifier does not match the code_challenge the consent started with';
  return undefined;
}

/** Google's consent URL: offline access (a refresh token), the consent screen every time, PKCE. */
export function consentUrl(
  authorizeUrl: string,
  request: { clientId: string; redirectUri: string; state: string; codeChallenge: string },
): string {
  const url = new URL(authorizeUrl);
  url.search = new URLSearchParams({
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: 'code',
    scope: SHEETS_SCOPES.join(' '),
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

/**
 * The Picker's app id is the Google Cloud project number, which Google's OAuth client ids begin
 * with (`<number>-<hash>.apps.googleusercontent.com`); null for a client id of another form.
 */
export const pickerAppId = (clientId: string): string | null => /^(\d+)-/.exec(clientId)?.[1] ?? null;
