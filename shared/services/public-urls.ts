import { BadRequestError } from '../domain/errors.ts';
import { assertFetchableUrl, OutboundRequestError } from '../net/guarded-fetch.ts';

/**
 * Refuses, when a customer stores it, a URL the platform must not fetch or post to on their behalf
 * (SSRF): anything but https, and hosts resolving to anything but public addresses. Every fetch
 * checks again at connect time (shared/net/guarded-fetch.ts).
 */
export async function assertPublicUrl(url: string, what: string): Promise<void> {
  try {
    await assertFetchableUrl(url);
  } catch (error) {
    if (error instanceof OutboundRequestError) throw new BadRequestError(`${what} URL refused: ${error.message}`);
    throw error;
  }
}
