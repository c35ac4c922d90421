import { isIP } from 'node:net';
import { clientKey } from '../http/client-key.js';

/**
 * The client's network as a session list shows it: an IPv4 address by its /24 (`203.0.113.0/24`), an
 * IPv6 one by its /64; '' when the address is not one. Enough to tell "home" from "abroad", not to
 * find anyone.
 */
export function networkOf(ip: string | undefined): string {
  const key = clientKey(ip);
  if (key === 'invalid') return '';
  if (isIP(key) === 4) return `${key.split('.').slice(0, 3).join('.')}.0/24`;
  return key; // already the /64
}
