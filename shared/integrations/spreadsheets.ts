import { createGuardedFetch } from '../net/guarded-fetch.ts';
import { getSecretFields, getSecretJson, SECRET_PLACEHOLDER } from '../config/secrets.ts';
import { optionalSetting } from '../config/settings.ts';
import { consentUrl, pickerAppId } from '../domain/oauth-consent.ts';

/**
 * The hosted-spreadsheet provider adapter (Google Sheets API v4 and Google OAuth 2.0, the shapes
 * every client library uses). Base URLs come from configuration so the local fake provider
 * (local/sheets-simulator.ts) serves the same calls.
 *
 *   GET  {SHEETS_OAUTH_AUTHORIZE_URL}?client_id&redirect_uri&scope&state&code_challenge…  (the browser's consent)
 *   POST {SHEETS_OAUTH_TOKEN_URL}  form: grant_type=authorization_code|refresh_token, client_id, client_secret, code_verifier, …
 *   GET  {SHEETS_USERINFO_URL}     Authorization: Bearer <access token>  → {email}
 *   GET  {SHEETS_API_URL}/v4/spreadsheets/{id}/values/{range}  → {values: string[][]}
 */
export class SpreadsheetProviderError extends Error {
  override readonly name = 'SpreadsheetProviderError';
  constructor(
    message: string,
    /** The provider refused the credentials or the sheet (4xx): not worth retrying. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

const settings = () => ({
  authorizeUrl: optionalSetting('SHEETS_OAUTH_AUTHORIZE_URL') ?? 'https://accounts.google.com/o/oauth2/v2/auth',
  pickerScriptUrl: optionalSetting('SHEETS_PICKER_SCRIPT_URL') ?? 'https://apis.google.com/js/api.js',
  tokenUrl: optionalSetting('SHEETS_OAUTH_TOKEN_URL') ?? 'https://oauth2.googleapis.com/token',
  userinfoUrl: optionalSetting('SHEETS_USERINFO_URL') ?? 'https://openidconnect.googleapis.com/v1/userinfo',
  apiUrl: (optionalSetting('SHEETS_API_URL') ?? 'https://sheets.googleapis.com').replace(/\/$/, ''),
});

/** The sheet and range come from the organization: through the SSRF guard, 10 s and 10 MiB at most. */
const providerFetch = createGuardedFetch({ timeoutMs: 10_000, maxResponseBytes: 10 * 1024 * 1024 });
/** The OAuth client, read at run time from the SHEETS_SECRET_ARN secret. */
const oauthClient = () => getSecretFields('SHEETS_SECRET_ARN', ['clientId', 'clientSecret']);

async function call<T>(url: string, init: RequestInit, what: string): Promise<T> {
  let response: Response;
  try {
    response = await providerFetch(url, init);
  } catch (error) {
    throw new SpreadsheetProviderError(`${what}: provider unreachable (${(error as Error).message})`, false);
  }
  if (!response.ok)
    throw new SpreadsheetProviderError(`${what}: provider answered ${response.status}`, response.status < 500);
  try {
    return (await response.json()) as T;
  } catch (error) {
    throw new SpreadsheetProviderError(`${what}: unreadable answer (${(error as Error).message})`, false);
  }
}

interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
}

async function tokenRequest(fields: Record<string, string>): Promise<TokenResponse> {
  const { clientId, clientSecret } = await oauthClient();
  return call<TokenResponse>(
    settings().tokenUrl,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, client_id: clientId, client_secret: clientSecret }),
    },
    'Token request',
  );
}

export async function accountEmail(accessToken: string): Promise<string> {
  const info = await call<{ email?: string }>(
    settings().userinfoUrl,
    { headers: { Authorization: `Bearer ${accessToken}` } },
    'User info',
  );
  return info.email ?? '';
}

/** The provider's consent screen for the platform's OAuth client. */
export async function authorizationUrl(request: {
  redirectUri: string;
  state: string;
  codeChallenge: string;
}): Promise<string> {
  const { clientId } = await oauthClient();
  return consentUrl(settings().authorizeUrl, { clientId, ...request });
}

/** What the browser's file picker needs besides the access token. */
export async function pickerSettings(): Promise<{
  scriptUrl: string;
  appId: string | null;
  developerKey: string | null;
}> {
  const { clientId } = await oauthClient();
  const { pickerApiKey } = await getSecretJson('SHEETS_SECRET_ARN');
  return {
    scriptUrl: settings().pickerScriptUrl,
    appId: pickerAppId(clientId),
    developerKey:
      typeof pickerApiKey === 'string' && pickerApiKey && pickerApiKey !== SECRET_PLACEHOLDER ? pickerApiKey : null,
  };
}

/** Completes the OAuth consent: the refresh token to keep (encrypted) and the account's email. */
export async function exchangeAuthorizationCode(
  code: string,
  redirectUri: string,
  codeVerifier?: string,
): Promise<{ refreshToken: string; accountEmail: string }> {
  const tokens = await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
  });
  if (!tokens.refresh_token)
    throw new SpreadsheetProviderError('The provider returned no refresh token (ask for offline access)', true);
  return { refreshToken: tokens.refresh_token, accountEmail: await accountEmail(tokens.access_token) };
}

/** A fresh short-lived access token from the stored refresh token. */
export async function accessTokenFor(refreshToken: string): Promise<{ accessToken: string; expiresIn: number }> {
  const tokens = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken });
  return { accessToken: tokens.access_token, expiresIn: tokens.expires_in };
}

export async function readSheetValues(accessToken: string, spreadsheetId: string, range: string): Promise<string[][]> {
  const url = `${settings().apiUrl}/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}/values/${encodeURIComponent(range)}`;
  const result = await call<{ values?: string[][] }>(
    url,
    { headers: { Authorization: `Bearer ${accessToken}` } },
    'Reading the sheet',
  );
  return result.values ?? [];
}
