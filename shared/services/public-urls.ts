import { lookup } from 'node:dns/promises';
import { BadRequestError } from '../domain/errors.ts';
import { isForbiddenAddress } from '../domain/webhook-url.ts';

/** The local stack reaches loopback receivers and feeds; a deployed stack never reaches private addresses. */
const allowPrivateUrls = () => process.env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true';

/**
 * Refuses URLs the platform must not fetch or post to on a customer's behalf (SSRF): anything but
 * https, and hosts resolving to private, loopback or link-local addresses.
 */
export async function assertPublicUrl(url: string, what: string): Promise<void> {
  if (allowPrivateUrls()) return;
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:') throw new BadRequestError(`${what} URLs must use https`);
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new BadRequestError(`The ${what.toLowerCase()} host ${host} does not resolve`);
  }
  if (addresses.some(({ address }) => isForbiddenAddress(address))) {
    throw new BadRequestError(`${what} URLs must not point to private, loopback or link-local addresses`);
  }
}
