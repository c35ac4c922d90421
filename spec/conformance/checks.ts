import { createHash, randomBytes } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { Arrival } from './browser.js';
import type { Tokens } from './relying-parties.js';

/**
 * The checks the certification suite makes on every flow, beyond what the relying-party libraries
 * check themselves: the key set (every key has a distinct kid), the id_token's claims as
 * `PerformStandardIdTokenChecks` reads them, `at_hash` when present, and the error responses' shape.
 */

/** A random value of the suite's alphabet (its state and nonce are 10 alphanumerics; longer adds -._~). */
export function suiteRandom(length = 10): string {
  const alphabet =
    length > 10
      ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'
      : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The suite's key-set checks: public keys only, each with a kid, no two alike. */
export async function checkKeySet(t: ExecutionContext, jwksURI: string): Promise<JSONWebKeySet> {
  const res = await fetch(jwksURI);
  t.is(res.status, 200);
  const set = (await res.json()) as JSONWebKeySet;
  const kids = set.keys.map((k) => k.kid);
  t.true(
    kids.every((k) => typeof k === 'string' && k.trim() !== ''),
    'every key has a kid',
  );
  t.is(new Set(kids).size, kids.length, 'kids are distinct');
  t.false(
    set.keys.some((k) => 'd' in k || k.kty === 'oct'),
    'no private or symmetric key material',
  );
  return set;
}

/** The standard id_token checks (the suite's ValidateIdToken and friends), with the signature checked by jose. */
export async function checkIdToken(
  t: ExecutionContext,
  tokens: Tokens,
  expect: { issuer: string; clientId: string; nonce?: string; keys: JSONWebKeySet; now: number },
): Promise<Record<string, unknown>> {
  const { payload, protectedHeader } = await jwtVerify(tokens.id_token, createLocalJWKSet(expect.keys), {
    issuer: expect.issuer,
    audience: expect.clientId,
    currentDate: new Date(expect.now),
  });
  t.truthy(protectedHeader.kid, 'the id_token names its key');
  t.is(payload.iss, expect.issuer, 'iss is the issuer, to the character');
  const now = Math.floor(expect.now / 1000);
  t.true(payload.exp! > now - 300 && payload.exp! < now + 50 * 365 * 86_400, 'exp is in seconds, not expired');
  t.true(Math.abs(payload.iat! - now) <= 300, 'iat within 5 minutes of now');
  if (payload.auth_time !== undefined) t.true((payload.auth_time as number) <= now + 300, 'auth_time not ahead');
  t.is(payload.nonce, expect.nonce, 'nonce as sent');
  t.regex(payload.sub!, /^[\x20-\x7e]{1,255}$/, 'sub is printable ASCII, at most 255 characters');
  for (const [name, value] of Object.entries(payload))
    t.false(value === null || value === '', `claim ${name} is neither null nor empty`);
  if (payload.at_hash !== undefined)
    t.is(payload.at_hash, halfHash(tokens.access_token, protectedHeader.alg), 'at_hash is the access token’s');
  return payload as Record<string, unknown>;
}

/** The left half of a value's hash, by the id_token's algorithm (SHA-512 for Ed25519). */
export function halfHash(value: string, alg: string): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : `sha${alg.slice(2)}`)
    .update(value, 'ascii')
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** An authorization error response as the suite checks it: state echoed, no code, only the allowed parameters. */
export function checkErrorResponse(t: ExecutionContext, arrival: Arrival, state: string | undefined): string {
  const p = arrival.params;
  t.truthy(p.get('error'), 'an error is returned');
  t.is(p.get('code'), null, 'no code beside an error');
  if (state !== undefined) t.is(p.get('state'), state, 'state echoed exactly');
  const allowed = new Set(['error', 'error_description', 'error_uri', 'state', 'session_state', 'iss']);
  t.deepEqual(
    [...p.keys()].filter((k) => !allowed.has(k)),
    [],
    'no unexpected parameters',
  );
  const description = p.get('error_description');
  // RFC 6749 §4.1.2.1: error_description is %x20-21 / %x23-5B / %x5D-7E.
  if (description !== null) t.regex(description, /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
  return p.get('error')!;
}
