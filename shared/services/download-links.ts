import { getSecretString } from '../config/secrets.ts';
import { createDownloadToken, verifyDownloadToken, type DownloadGrant } from '../domain/download-links.ts';
import { ForbiddenError, NotFoundError } from '../domain/errors.ts';
import { presignedRunFileUrl, runFileExists } from '../repositories/run-files.ts';

/** The presigned URL a link redirects to only has to last until the client follows the redirect. */
const REDIRECT_URL_SECONDS = 60;

/** The signing key: a generated Secrets Manager secret (DOWNLOAD_LINK_SECRET_ARN), cached. */
const signingSecret = () => getSecretString('DOWNLOAD_LINK_SECRET_ARN');

export interface DownloadLink {
  url: string;
  expiresAt: string;
}

export async function createDownloadLink(
  baseUrl: string,
  key: string,
  contentType: string,
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<DownloadLink> {
  const expiresAt = Math.floor(now / 1000) + lifetimeSeconds;
  const token = createDownloadToken(await signingSecret(), { key, contentType, expiresAt });
  return { url: `${baseUrl}/downloads/${token}`, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/** Where a valid link leads: a short-lived presigned URL of the file. */
export async function resolveDownloadLink(token: string, now = Date.now()): Promise<string> {
  const check = verifyDownloadToken(await signingSecret(), token, Math.floor(now / 1000));
  if (!check.valid)
    throw new ForbiddenError(
      check.reason === 'expired' ? 'This download link has expired' : 'This download link is not valid',
    );
  const grant: DownloadGrant = check.grant;
  // A deleted run's files are gone: its old links must not lead anywhere.
  if (!(await runFileExists(grant.key))) throw new NotFoundError('The file no longer exists');
  return presignedRunFileUrl(grant.key, grant.contentType, REDIRECT_URL_SECONDS);
}
