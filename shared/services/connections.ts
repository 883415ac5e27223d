import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../crypto/secret-box.ts';
import { BadRequestError, NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { CONSENT_SECONDS, consentRefusal } from '../domain/oauth-consent.ts';
import * as spreadsheets from '../integrations/spreadsheets.ts';
import * as consents from '../repositories/consents.ts';
import * as repository from '../repositories/connections.ts';

/** Picker tokens are handed out for at most an hour, whatever the provider grants. */
const PICKER_TOKEN_MAX_SECONDS = 3600;

const context = (orgId: number) => ({ organizationId: String(orgId) });
const publicView = ({ refresh_token_ciphertext: _secret, ...connection }: repository.ConnectionRecord) => connection;

async function providerCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof spreadsheets.SpreadsheetProviderError && error.refused)
      throw new BadRequestError(`The spreadsheet provider refused the request: ${error.message}`);
    throw error;
  }
}

/**
 * Starts a consent for the organization: a random `state` stored under it (single use, expiring)
 * with the redirect URI and the caller's PKCE challenge, and the provider's consent URL.
 */
export async function startConsent(
  orgId: number,
  request: { provider: string; redirect_uri: string; code_challenge: string },
) {
  const state = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + CONSENT_SECONDS * 1000).toISOString();
  const authorizationUrl = await providerCall(() =>
    spreadsheets.authorizationUrl({
      redirectUri: request.redirect_uri,
      state,
      codeChallenge: request.code_challenge,
    }),
  );
  await consents.putConsent(orgId, state, {
    provider: request.provider,
    redirect_uri: request.redirect_uri,
    code_challenge: request.code_challenge,
    expires_at: expiresAt,
  });
  return { authorization_url: authorizationUrl, state, expires_at: expiresAt };
}

/** A consent's `state` and verifier, checked (and the state used up) before the code is redeemed. */
async function verifiedConsent(
  orgId: number,
  request: { redirect_uri: string; state?: string; code_verifier?: string },
) {
  if (request.state === undefined && request.code_verifier === undefined) return undefined;
  if (request.state === undefined || request.code_verifier === undefined)
    throw new BadRequestError(
      'state and code_verifier go together: give both, from the consent the connection started',
    );
  const refusal = consentRefusal(
    await consents.takeConsent(orgId, request.state),
    { redirect_uri: request.redirect_uri, code_verifier: request.code_verifier },
    new Date(),
  );
  if (refusal) throw new BadRequestError(refusal);
  return request.code_verifier;
}

/**
 * Completes an OAuth consent: the refresh token is encrypted (KMS / local key) and never leaves the
 * server. With a `state` of `startConsent`, the consent is checked first (this organization's,
 * unused, unexpired, same redirect URI, the PKCE verifier) and the verifier goes to the provider.
 */
export async function createConnection(
  orgId: number,
  request: {
    provider: string;
    authorization_code: string;
    redirect_uri: string;
    state?: string;
    code_verifier?: string;
  },
) {
  const codeVerifier = await verifiedConsent(orgId, request);
  const { refreshToken, accountEmail } = await providerCall(() =>
    spreadsheets.exchangeAuthorizationCode(request.authorization_code, request.redirect_uri, codeVerifier),
  );
  const connection: repository.ConnectionRecord = {
    id: `conn_${randomAlphanumeric(16)}`,
    provider: request.provider,
    account_email: accountEmail,
    created_at: new Date().toISOString(),
    refresh_token_ciphertext: await encryptSecret(refreshToken, context(orgId)),
  };
  await repository.putConnection(orgId, connection);
  return publicView(connection);
}

export async function listConnections(orgId: number) {
  return { items: (await repository.listConnections(orgId)).map(publicView) };
}

export async function deleteConnection(orgId: number, connectionId: string): Promise<void> {
  if (!(await repository.deleteConnection(orgId, connectionId))) throw new NotFoundError('Connection not found');
}

async function accessToken(orgId: number, connectionId: string) {
  const connection = await repository.getConnection(orgId, connectionId);
  if (!connection) throw new NotFoundError('Connection not found');
  const refreshToken = await decryptSecret(connection.refresh_token_ciphertext, context(orgId));
  return { connection, ...(await providerCall(() => spreadsheets.accessTokenFor(refreshToken))) };
}

/** A short-lived access token for the file-picker window (≤ 1 h). */
export async function pickerToken(orgId: number, connectionId: string) {
  const { connection, accessToken: token, expiresIn } = await accessToken(orgId, connectionId);
  const picker = await spreadsheets.pickerSettings();
  return {
    access_token: token,
    account_email: connection.account_email,
    expires_in: Math.min(expiresIn, PICKER_TOKEN_MAX_SECONDS),
    picker_script_url: picker.scriptUrl,
    app_id: picker.appId,
    developer_key: picker.developerKey,
  };
}

/** The cells of a spreadsheet range, read through the organization's connection. */
export async function readSheet(
  orgId: number,
  connectionId: string,
  spreadsheetId: string,
  range: string,
): Promise<string[][]> {
  const { accessToken: token } = await accessToken(orgId, connectionId);
  return providerCall(() => spreadsheets.readSheetValues(token, spreadsheetId, range));
}
