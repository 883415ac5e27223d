import { decryptSecret, encryptSecret } from '../crypto/secret-box.ts';
import { BadRequestError, NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import * as spreadsheets from '../integrations/spreadsheets.ts';
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

/** Completes an OAuth consent: the refresh token is encrypted (KMS / local key) and never leaves the server. */
export async function createConnection(
  orgId: number,
  request: { provider: string; authorization_code: string; redirect_uri: string },
) {
  const { refreshToken, accountEmail } = await providerCall(() =>
    spreadsheets.exchangeAuthorizationCode(request.authorization_code, request.redirect_uri),
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
  return {
    access_token: token,
    account_email: connection.account_email,
    expires_in: Math.min(expiresIn, PICKER_TOKEN_MAX_SECONDS),
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
