import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which range an IP address belongs to, for the SSRF guard (shared/net/guarded-fetch.ts). Built on
 * IANA's IPv4 and IPv6 Special-Purpose Address Registries: only `public` addresses may be reached
 * on a customer's behalf. IPv6 outside global unicast (2000::/3) is refused whatever it is, and
 * every transition form that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) is
 * refused outright, with the IPv4 address it carries reported, since the far end decides where it
 * really goes.
 */
export type AddressRange =
  | 'public'
  | 'invalid'
  | 'this-network'
  | 'private'
  | 'shared-cgnat'
  | 'loopback'
  | 'link-local'
  | 'ietf-protocol'
  | 'documentation'
  | '6to4-relay'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unspecified'
  | 'ipv4-mapped'
  | 'ipv4-translated'
  | 'ipv4-compatible'
  | 'nat64'
  | 'discard'
  | 'teredo'
  | 'orchid'
  | '6to4'
  | 'srv6'
  | 'unique-local'
  | 'site-local';

export interface AddressClass {
  range: AddressRange;
  /** The IPv4 address an IPv6 transition address carries (mapped, compatible, NAT64, 6to4, Teredo). */
  embeddedIPv4?: string;
}

interface Rule {
  bytes: number[];
  prefix: number;
  range: AddressRange;
  /** Where the carried IPv4 address sits: byte offset, and whether it is inverted (Teredo). */
  embedded?: { offset: number; inverted?: boolean };
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (zone index dropped, a dotted IPv4 tail accepted). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = ipv4Bytes(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function rules(family: 4 | 6, table: [string, AddressRange, Rule['embedded']?][]): Rule[] {
  return table.map(([cidr, range, embedded]) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    return { bytes: family === 4 ? ipv4Bytes(network) : ipv6Bytes(network), prefix: Number(prefix), range, embedded };
  });
}

/** First match wins, so a narrower range comes before the one containing it. */
const IPV4_RULES = rules(4, [
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared-cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf-protocol'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4-relay'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6_RULES = rules(6, [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'ipv4-mapped', { offset: 12 }],
  ['::ffff:0:0:0/96', 'ipv4-translated', { offset: 12 }],
  ['::/96', 'ipv4-compatible', { offset: 12 }],
  ['64:ff9b::/96', 'nat64', { offset: 12 }],
  ['64:ff9b:1::/48', 'nat64'],
  ['100::/64', 'discard'],
  ['2001::/32', 'teredo', { offset: 12, inverted: true }],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'orchid'],
  ['2001:20::/28', 'orchid'],
  ['2001::/23', 'ietf-protocol'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4', { offset: 2 }],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'srv6'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);
const GLOBAL_UNICAST = rules(6, [['2000::/3', 'public']])[0]!;

function matches(bytes: number[], rule: Rule): boolean {
  for (let bit = 0; bit < rule.prefix; bit += 8) {
    const width = Math.min(8, rule.prefix - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (rule.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

/** The range of an IPv4 or IPv6 address; anything that is not an IP address is `invalid`. */
export function classifyAddress(address: string): AddressClass {
  if (isIPv4(address)) {
    const bytes = ipv4Bytes(address);
    return { range: IPV4_RULES.find((rule) => matches(bytes, rule))?.range ?? 'public' };
  }
  if (!isIPv6(address)) return { range: 'invalid' };
  const bytes = ipv6Bytes(address);
  const rule = IPV6_RULES.find((candidate) => matches(bytes, candidate));
  if (!rule) return { range: matches(bytes, GLOBAL_UNICAST) ? 'public' : 'reserved' };
  if (!rule.embedded) return { range: rule.range };
  const { offset, inverted } = rule.embedded;
  const carried = bytes.slice(offset, offset + 4).map((byte) => (inverted ? ~byte & 0xff : byte));
  return { range: rule.range, embeddedIPv4: carried.join('.') };
}

/**
 * Whether the platform may connect to this address for a customer. Loopback only when the local
 * stack or the tests allow it (their configuration, never a request).
 */
export function mayConnectTo(address: string, allowLoopback: boolean): boolean {
  const { range } = classifyAddress(address);
  return range === 'public' || (allowLoopback && range === 'loopback');
}
