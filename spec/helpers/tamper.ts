/**
 * A JWS (or any base64url text) with one character of its signature changed: the middle one, so the
 * change always alters the decoded bytes (the last character may carry padding bits a decoder ignores),
 * and never to the character already there. Appending a fixed tail instead ("…AA") leaves a valid
 * signature whenever the real one ends that way: a test then fails about once in a few hundred runs.
 */
export function tamperedSignature(jws: string): string {
  const at = jws.lastIndexOf('.') + 1 + Math.floor((jws.length - jws.lastIndexOf('.') - 1) / 2);
  const swapped = jws[at] === 'A' ? 'B' : 'A';
  return jws.slice(0, at) + swapped + jws.slice(at + 1);
}
