import * as z from 'zod';
// The zod extension (`.openapi`) is installed there.
import './common.ts';

/**
 * What the OpenAPI document says wherever a user gives a URL the platform fetches: the SSRF guard
 * of shared/net/guarded-fetch.ts and its caps, in one sentence each field appends its caps to.
 */
export const GUARDED_URL_RULES =
  'Fetched through the SSRF guard: https only (plain http only on the local stack); the host must resolve to public addresses only ' +
  '(refused: loopback, private, link-local, carrier-grade NAT, multicast, reserved and documentation IPv4; IPv6 unspecified, loopback, ' +
  'unique-local fc00::/7, site-local fec0::/10, link-local, IPv4-mapped and -compatible, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, ' +
  '6to4 2002::/16, Teredo, anything outside 2000::/3), checked when the URL is given and again on the address actually connected to, ' +
  'every redirect included (at most 5).';

export const guardedUrlDescription = (what: string, caps: string): string =>
  `${what} ${GUARDED_URL_RULES} Caps: ${caps}.`;

/**
 * OpenAPI extensions marking what a customer sets that the platform fetches: `x-guarded-url` on a
 * URL field, `x-guarded-url-keys` on a free-form object with the keys that hold such URLs. A test
 * (test/integration/customer-urls.test.ts) sends every marked field a forbidden address and
 * expects a refusal, and fails on any URL-like request field left unmarked.
 */
export const GUARDED_URL = 'x-guarded-url';
export const GUARDED_URL_KEYS = 'x-guarded-url-keys';

/**
 * Every request field holding a URL the platform fetches: http or https here (422 otherwise); the
 * service checks it with the guard when it is given (`assertPublicUrl`: plain http and loopback
 * only where the local stack allows them) and every fetch checks the address again.
 */
export const guardedUrl = (what: string, caps: string, maxLength = 2048) =>
  z
    .url({ protocol: /^https?$/ })
    .max(maxLength)
    .openapi({ description: guardedUrlDescription(what, caps), [GUARDED_URL]: true } as object);

/** Marks the keys of a free-form object that hold URLs the platform fetches (see GUARDED_URL_KEYS). */
export const withGuardedUrlKeys = <T extends z.ZodType>(schema: T, keys: readonly string[]): T =>
  schema.openapi({ [GUARDED_URL_KEYS]: keys } as object) as T;
