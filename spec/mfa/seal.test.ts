/** Sealing TOTP keys at rest: AES-256-GCM under a key derived from the service secret, bound to the user id. */
import test from 'ava';
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { SealError, sealKeys } from '../../lib/mfa/seal.js';

const SECRET = 'seal-test-secret-0123456789abcdef';
const OLD = 'seal-test-old-secret-0123456789ab';
const TOTP_KEY = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The sealed text with the character at `i` changed to another one the format could hold. */
function changeAt(sealed: string, i: number): string {
  const c = sealed[i]!;
  const other = c === '.' ? 'A' : B64URL[(B64URL.indexOf(c) + 1) % B64URL.length]!;
  return sealed.slice(0, i) + other + sealed.slice(i + 1);
}

/** AES-256-GCM opened by hand, with no help from seal.ts: true when `key` opens `sealed` for `aad`. */
function opensWith(key: Buffer, sealed: string, aad: string): boolean {
  const [, , iv, body] = sealed.split('.') as [string, string, string, string];
  const bytes = Buffer.from(body, 'base64url');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(bytes.subarray(bytes.length - 16));
  try {
    return Buffer.concat([d.update(bytes.subarray(0, bytes.length - 16)), d.final()]).toString() === TOTP_KEY;
  } catch {
    return false;
  }
}

test('a sealed key opens for the same user with the same secret, in the v1.<kid>.<iv>.<ciphertext+tag> format', (t) => {
  const keys = sealKeys(SECRET);
  const sealed = keys.seal(TOTP_KEY, 'user-1');
  t.regex(sealed, /^v1\.[A-Za-z0-9_-]{11}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
  t.false(sealed.includes(TOTP_KEY));
  t.deepEqual(keys.open(sealed, 'user-1'), { plain: TOTP_KEY, stale: false });
  t.deepEqual(
    sealKeys(SECRET, [OLD]).open(sealed, 'user-1'),
    { plain: TOTP_KEY, stale: false },
    'a second instance with the same secret opens it too',
  );
  t.deepEqual(keys.open(keys.seal('', 'user-1'), 'user-1'), { plain: '', stale: false }, 'an empty text round-trips');
});

test('a value sealed for one user does not open for another (the user id is bound in as AAD)', (t) => {
  const keys = sealKeys(SECRET);
  const sealed = keys.seal(TOTP_KEY, 'user-1');
  t.throws(() => keys.open(sealed, 'user-2'), { instanceOf: SealError });
  t.throws(() => keys.open(sealed, ''), { instanceOf: SealError });
});

test('a change to any character of any part (version, kid, iv, ciphertext, tag, the dots) makes it fail with SealError', (t) => {
  const keys = sealKeys(SECRET);
  const sealed = keys.seal(TOTP_KEY, 'user-1');
  for (let i = 0; i < sealed.length; i++) {
    const changed = changeAt(sealed, i);
    t.not(changed, sealed);
    t.throws(() => keys.open(changed, 'user-1'), { instanceOf: SealError }, `character ${i} changed: ${changed}`);
  }
  const [v, kid, iv, body] = sealed.split('.') as [string, string, string, string];
  const flipped = Buffer.from(body, 'base64url');
  flipped[0] ^= 1;
  t.throws(
    () => keys.open([v, kid, iv, flipped.toString('base64url')].join('.'), 'user-1'),
    { instanceOf: SealError },
    'a flipped ciphertext bit',
  );
  for (const bad of [
    '',
    'v1',
    `${sealed}.x`,
    `v2.${kid}.${iv}.${body}`,
    `v1.${kid}.${iv}.`,
    `v1.${kid}.${iv}.${body}=`,
    42 as unknown as string,
  ]) {
    t.throws(() => keys.open(bad, 'user-1'), { instanceOf: SealError }, `malformed: ${String(bad)}`);
  }
});

test('a value sealed under a previous secret opens as stale once that secret is in previous, and fails without it', (t) => {
  const sealed = sealKeys(OLD).seal(TOTP_KEY, 'user-1');
  t.throws(() => sealKeys(SECRET).open(sealed, 'user-1'), {
    instanceOf: SealError,
    message: /neither the current one nor a previous one/,
  });
  t.throws(() => sealKeys(SECRET, ['another-old-secret-0123456789']).open(sealed, 'user-1'), { instanceOf: SealError });
  const rotated = sealKeys(SECRET, ['another-old-secret-0123456789', OLD]);
  t.deepEqual(rotated.open(sealed, 'user-1'), { plain: TOTP_KEY, stale: true });
  const resealed = rotated.seal(TOTP_KEY, 'user-1');
  t.deepEqual(
    rotated.open(resealed, 'user-1'),
    { plain: TOTP_KEY, stale: false },
    're-sealed under the current key it is no longer stale',
  );
  t.deepEqual(
    sealKeys(SECRET).open(resealed, 'user-1'),
    { plain: TOTP_KEY, stale: false },
    'and the previous secret can then be dropped',
  );
  t.deepEqual(
    sealKeys(SECRET, [SECRET]).open(resealed, 'user-1').stale,
    false,
    'the current secret listed as previous too is still current',
  );
});

test('two seals of one text differ (a random iv each time)', (t) => {
  const keys = sealKeys(SECRET);
  const a = keys.seal(TOTP_KEY, 'user-1');
  const b = keys.seal(TOTP_KEY, 'user-1');
  t.not(a, b);
  t.not(a.split('.')[2], b.split('.')[2], 'the iv part differs');
  t.is(a.split('.')[1], b.split('.')[1], 'the kid is the same');
});

test('the AES key is derived by HKDF-SHA256 (salt authkoa, info "authkoa mfa seal v1"), not the secret itself, and another secret does not open it', (t) => {
  const secret32 = 'a-secret-of-exactly-32-bytes-!!!';
  t.is(Buffer.byteLength(secret32), 32);
  const sealed = sealKeys(secret32).seal(TOTP_KEY, 'user-1');
  t.false(opensWith(Buffer.from(secret32), sealed, 'user-1'), 'the raw secret as an AES-256 key does not open it');
  const derived = Buffer.from(hkdfSync('sha256', secret32, 'authkoa', 'authkoa mfa seal v1', 32));
  t.true(opensWith(derived, sealed, 'user-1'), 'the documented derivation does');
  const other = Buffer.from(hkdfSync('sha256', SECRET, 'authkoa', 'authkoa mfa seal v1', 32));
  t.false(opensWith(other, sealed, 'user-1'), 'a key derived from a different secret does not');
  // The kid names the key, so relabelling the value with the other secret's kid reaches the decryption: it must fail there.
  const otherKid = sealKeys(SECRET).seal('x', 'u').split('.')[1]!;
  const relabelled = sealed
    .split('.')
    .map((p, i) => (i === 1 ? otherKid : p))
    .join('.');
  t.throws(() => sealKeys(SECRET).open(relabelled, 'user-1'), { instanceOf: SealError, message: /does not open/ });
});

test('an empty or non-string secret is a TypeError naming the secret; so is a bad aad', (t) => {
  for (const bad of ['', undefined, 42, null]) {
    t.throws(() => sealKeys(bad as unknown as string), { instanceOf: TypeError, message: /secret/ }, String(bad));
    t.throws(
      () => sealKeys(SECRET, [bad as unknown as string]),
      { instanceOf: TypeError, message: /previous secret/ },
      `previous ${String(bad)}`,
    );
  }
  t.throws(() => sealKeys(SECRET, 'old' as unknown as string[]), {
    instanceOf: TypeError,
    message: /previous secrets/,
  });
  t.throws(() => sealKeys(SECRET).seal(TOTP_KEY, undefined as unknown as string), {
    instanceOf: TypeError,
    message: /aad/,
  });
  t.throws(() => sealKeys(SECRET).open('v1.a.b.c', 7 as unknown as string), { instanceOf: TypeError, message: /aad/ });
});
