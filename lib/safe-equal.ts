import { timingSafeEqual } from 'node:crypto';

/**
 * Compares two strings in time that depends only on their lengths, for values an attacker may probe
 * byte by byte (OAuth2 state, XSRF values, webhook secrets). Lengths are not secret here: every such
 * value has a fixed, public length.
 */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
