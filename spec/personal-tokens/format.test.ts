/**
 * The personal token's shape: what a secret scanner matches, and the checksum that refuses a mistyped or made-up
 * token before any store is read. The CRC-32 is checked against zlib's own.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { checkPrefix, crc32, mintToken, tokenHash, wellFormed } from '../../lib/personal-tokens/format.js';

test('a token is <prefix>_ then 36 base62 characters, and passes its own check; 1000 are all different', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const token = mintToken('akp');
    t.regex(token, /^akp_[0-9A-Za-z]{36}$/);
    t.true(wellFormed(token, 'akp'), token);
    seen.add(token);
  }
  t.is(seen.size, 1000);
  t.regex(mintToken(), /^akp_/, 'akp is the default prefix');
  t.regex(mintToken('acme2'), /^acme2_[0-9A-Za-z]{36}$/);
});

test('any one character changed, anywhere after the prefix, fails the check', (t) => {
  const token = mintToken('akp');
  let refused = 0;
  for (let i = 4; i < token.length; i++) {
    for (const c of ['0', 'z', 'Q']) {
      if (token[i] === c) continue;
      const typo = token.slice(0, i) + c + token.slice(i + 1);
      t.false(wellFormed(typo, 'akp'), `position ${i} → ${c}`);
      refused++;
    }
  }
  t.true(refused > 100, 'every position was tried');
});

test('another prefix, length or alphabet fails the check; so does anything not a string', (t) => {
  const token = mintToken('akp');
  t.false(wellFormed(token, 'xyz'));
  t.false(wellFormed(token.replace('akp_', 'AKP_'), 'akp'));
  t.false(wellFormed(token.slice(0, -1), 'akp'));
  t.false(wellFormed(`${token}0`, 'akp'));
  t.false(wellFormed(token.slice(0, 10) + '-' + token.slice(11), 'akp'));
  t.false(wellFormed(token.slice(0, 10) + 'é' + token.slice(11), 'akp'));
  for (const v of [undefined, null, 42, {}, '']) t.false(wellFormed(v, 'akp'));
});

test('crc32 agrees with zlib on random inputs and the standard check value', (t) => {
  t.is(crc32(Buffer.from('123456789')), 0xcbf43926);
  for (let i = 0; i < 200; i++) {
    const bytes = randomBytes(i);
    t.is(crc32(bytes), zlib.crc32(bytes));
  }
});

test("the stored form is the token's SHA-256, never the token", (t) => {
  const token = mintToken();
  const hash = tokenHash(token);
  t.is(hash, createHash('sha256').update(token).digest('base64url'));
  t.false(hash.includes(token.slice(4)));
  t.not(tokenHash(mintToken()), hash);
});

test('a prefix is 2 to 10 lower-case letters and digits starting with a letter; anything else names the option', (t) => {
  for (const good of ['ak', 'akp', 'acme2', 'abcdefghij']) t.is(checkPrefix(good), good);
  for (const bad of ['a', '2ab', 'ab_c', 'AKP', 'abcdefghijk', '', 5, undefined])
    t.throws(() => checkPrefix(bad, 'tokens.prefix'), { instanceOf: TypeError, message: /^tokens\.prefix must be/ });
});
