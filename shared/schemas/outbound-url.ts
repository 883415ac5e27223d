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
