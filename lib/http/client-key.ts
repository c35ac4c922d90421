import { isIP } from 'node:net';

/**
 * The key a client's attempts are counted under, from `ctx.ip`.
 *
 * - IPv4 as it is (an IPv4-mapped IPv6 address counts as its IPv4 address).
 * - IPv6 by its /64: one subscriber, one home network, one cloud instance holds a whole /64 and can
 *   pick a new address from it for every request, so counting single addresses counts nothing.
 * - Anything else (`X-Forwarded-For` garbage under `app.proxy`, an empty address) in one shared
 *   bucket: it cannot be trusted to tell clients apart, and it must never become a store key of its
 *   own (its length and characters are the sender's choice).
 */
export function clientKey(ip: string | undefined): string {
  if (typeof ip !== 'string' || ip === '' || ip.length > 64) return 'invalid';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return isIP(mapped[1]) === 4 ? mapped[1] : 'invalid';
  const family = isIP(ip);
  if (family === 4) return ip;
  if (family === 6) return `${ipv6Prefix64(ip)}::/64`;
  return 'invalid';
}

/** The first four groups of an IPv6 address, expanded and lower-case (`2001:db8:0:1`). */
function ipv6Prefix64(ip: string): string {
  const bare = ip.split('%')[0].toLowerCase(); // a zone id (fe80::1%eth0) names an interface, not a client
  const [head = '', tail] = bare.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:0:1.2.3.4) is two groups; only the first four groups matter here.
  const width = (gs: string[]) => gs.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const full = [...left, ...Array<string>(Math.max(0, 8 - width(left) - width(right))).fill('0'), ...right];
  return full
    .slice(0, 4)
    .map((g) => (g.includes('.') ? '0' : String(parseInt(g, 16).toString(16))))
    .join(':');
}
