import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outbound request (an avatar fetch, a webhook, a Shared Signals push, a back-channel logout) must never
 * reach unless its owner allows them (SSRF): loopback, private, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, multicast, reserved, unspecified, documentation ranges, and on IPv6 also
 * IPv4-mapped/compatible and NAT64 forms, which would smuggle an IPv4 target past the IPv4 rules.
 */
// Two lists: a BlockList checks IPv4 addresses against IPv6 rules as mapped (::ffff:a.b.c.d),
// which the mapped-range rule below would then refuse wholesale.
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED_V4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo etc.)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  BLOCKED_V6.addSubnet(net, prefix, 'ipv6');

/** True when `address` (an IP literal, brackets and zone allowed) is not a public unicast address. */
export function isForbiddenAddress(address: string): boolean {
  let a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const family = isIP(a);
  if (family === 0) return true; // not an IP at all: refuse rather than guess
  return family === 4 ? BLOCKED_V4.check(a, 'ipv4') : BLOCKED_V6.check(a, 'ipv6');
}

/**
 * The address rule of one sender: public addresses always; private ones when `allowPrivate`, or when listed in
 * `allow` (exact IPs or CIDRs such as `10.1.2.0/24`: one intranet host, not all). A bad entry is a TypeError naming
 * `option`, the option `allow` was read from.
 */
export function addressPolicy(
  allowPrivate: boolean,
  allow: readonly string[] = [],
  option = 'allowAddresses',
): (address: string) => boolean {
  if (allowPrivate) return () => true;
  const list = new BlockList();
  for (const entry of allow) {
    const [net, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(net);
    if (family === 0) throw new TypeError(`authKoa: ${option} entry ${JSON.stringify(entry)} is not an IP or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(bits), type);
  }
  return (address) => {
    const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = isIP(a);
    if (family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6')) return true;
    return !isForbiddenAddress(a);
  };
}
