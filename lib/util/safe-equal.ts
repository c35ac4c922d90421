/**
 * Compares two strings in time that depends only on their lengths, for values an attacker may probe
 * character by character (OAuth2 state, XSRF values, webhook secrets). Lengths are not secret here: every
 * such value has a fixed, public length. No early exit: every code unit is compared, differences are
 * OR-ed together. (No Buffers: this runs on every cookie-authenticated request.)
 */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
