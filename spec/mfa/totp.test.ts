import test from 'ava';
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import {
  base32Decode,
  base32Encode,
  hotp,
  matchTotp,
  newTotpSecret,
  otpauthURL,
  totp,
  totpStep,
  TOTP_STEP_S,
} from '../../lib/mfa/totp.js';

const ascii = (text: string) => Buffer.from(text, 'ascii');
/** RFC 6238 Appendix A/B seeds (per its errata): the digit string repeated to the hash's output length. */
const SEED_SHA1 = ascii('12345678901234567890');
const SEED_SHA256 = ascii('12345678901234567890123456789012');
const SEED_SHA512 = ascii('1234567890123456789012345678901234567890123456789012345678901234');

test('hotp gives the ten RFC 4226 Appendix D values', (t) => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  t.deepEqual(
    expected.map((_, counter) => hotp(SEED_SHA1, counter)),
    expected,
  );
});

test("totp gives every row of RFC 6238 Appendix B (SHA1, SHA256, SHA512, 8 digits) at the table's steps", (t) => {
  const table: Array<[seconds: number, stepHex: string, sha1: string, sha256: string, sha512: string]> = [
    [59, '0000000000000001', '94287082', '46119246', '90693936'],
    [1111111109, '00000000023523EC', '07081804', '68084774', '25091201'],
    [1111111111, '00000000023523ED', '14050471', '67062674', '99943326'],
    [1234567890, '000000000273EF07', '89005924', '91819424', '93441116'],
    [2000000000, '0000000003F940AA', '69279037', '90698825', '38618901'],
    [20000000000, '0000000027BC86AA', '65353130', '77737706', '47863826'],
  ];
  for (const [seconds, stepHex, sha1, sha256, sha512] of table) {
    const ms = seconds * 1000;
    t.is(totpStep(ms), parseInt(stepHex, 16), `step at ${seconds} s`);
    t.is(totp(SEED_SHA1, ms, { digits: 8 }), sha1, `SHA1 at ${seconds} s`);
    t.is(totp(SEED_SHA1, ms, { digits: 8, algorithm: 'sha1' }), sha1, `explicit SHA1 at ${seconds} s`);
    t.is(totp(SEED_SHA256, ms, { digits: 8, algorithm: 'sha256' }), sha256, `SHA256 at ${seconds} s`);
    t.is(totp(SEED_SHA512, ms, { digits: 8, algorithm: 'sha512' }), sha512, `SHA512 at ${seconds} s`);
  }
});

test('totp defaults to 6 digits: the last six of the 8-digit code, as RFC 4226 truncation gives', (t) => {
  t.is(totp(SEED_SHA1, 59_000), '287082');
  t.is(totp(SEED_SHA1, 1111111109_000), '081804', 'zero-padded');
});

test('totpStep: 30 s steps, the boundary belongs to the next step', (t) => {
  t.is(TOTP_STEP_S, 30);
  t.is(totpStep(0), 0);
  t.is(totpStep(29_999), 0);
  t.is(totpStep(30_000), 1);
  t.is(totpStep(59_999), 1);
  t.throws(() => totpStep(Number.NaN), { instanceOf: TypeError, message: /timeMs/ });
  t.throws(() => totpStep(-1), { instanceOf: TypeError, message: /timeMs/ });
});

test('hotp refuses bad arguments with a TypeError naming them', (t) => {
  t.throws(() => hotp(SEED_SHA1, -1), { instanceOf: TypeError, message: /counter/ });
  t.throws(() => hotp(SEED_SHA1, 1.5), { instanceOf: TypeError, message: /counter/ });
  t.throws(() => hotp(SEED_SHA1, 0, 5), { instanceOf: TypeError, message: /digits/ });
  t.throws(() => hotp(SEED_SHA1, 0, 6, 'md5' as 'sha1'), { instanceOf: TypeError, message: /algorithm/ });
  t.throws(() => hotp('secret' as unknown as Uint8Array, 0), { instanceOf: TypeError, message: /secret/ });
});

const NOW = 1_700_000_012_345; // mid-step, so ±1 s of clock skew stays in the same step
const secret = base32Decode('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
const codeAt = (step: number) => hotp(secret, step);

test('matchTotp accepts the current step and every step within ±window, returning the matched step', (t) => {
  const current = totpStep(NOW);
  for (const window of [1, 2, 3]) {
    for (let offset = -window; offset <= window; offset++) {
      t.is(
        matchTotp(secret, codeAt(current + offset), NOW, window),
        current + offset,
        `window ${window}, offset ${offset}`,
      );
    }
  }
});

test('matchTotp refuses steps at ±(window+1) and beyond', (t) => {
  const current = totpStep(NOW);
  for (const window of [0, 1, 2]) {
    for (const offset of [-(window + 1), window + 1, -(window + 5), window + 5]) {
      t.is(matchTotp(secret, codeAt(current + offset), NOW, window), undefined, `window ${window}, offset ${offset}`);
    }
  }
});

test('matchTotp with window 0 accepts only the current step', (t) => {
  const current = totpStep(NOW);
  t.is(matchTotp(secret, codeAt(current), NOW, 0), current);
  t.is(matchTotp(secret, codeAt(current - 1), NOW, 0), undefined);
  t.is(matchTotp(secret, codeAt(current + 1), NOW, 0), undefined);
});

test('matchTotp refuses a wrong code and a code for another secret', (t) => {
  const code = codeAt(totpStep(NOW));
  const wrong = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
  t.is(matchTotp(secret, wrong, NOW, 1), undefined);
  t.is(matchTotp(ascii('another secret, 20 b'), code, NOW, 0), undefined);
});

test('matchTotp: 5 or 7 digits, non-digits and non-strings give undefined, never a throw; spaces are removed', (t) => {
  const current = totpStep(NOW);
  const code = codeAt(current);
  t.is(matchTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, NOW, 0), current, 'spaces as apps show the code');
  t.is(matchTotp(secret, ` ${code} `, NOW, 0), current);
  const refused = [
    code.slice(1),
    code.slice(0, 5),
    `${code}0`,
    `0${code}`,
    '',
    '      ',
    `${code.slice(0, 5)}a`,
    `+${code.slice(1)}`,
    `${code.slice(0, 5)}.`,
    `${code}\n`,
    `${code}\t`,
    code.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))), // full-width digits
    code.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d))), // Arabic-Indic digits
  ];
  for (const typed of refused) t.is(matchTotp(secret, typed, NOW, 1), undefined, JSON.stringify(typed));
  for (const typed of [undefined, null, Number(code), [code]]) {
    t.is(matchTotp(secret, typed as unknown as string, NOW, 1), undefined, String(typed));
  }
});

test('matchTotp refuses a bad window with a TypeError naming it', (t) => {
  for (const window of [-1, 0.5, 11, Number.NaN]) {
    t.throws(
      () => matchTotp(secret, '123456', NOW, window),
      { instanceOf: TypeError, message: /window/ },
      String(window),
    );
  }
});

test('matchTotp near the epoch does not look at steps before 0', (t) => {
  t.is(matchTotp(secret, codeAt(0), 1000, 2), 0);
  t.is(matchTotp(secret, codeAt(2), 1000, 2), 2);
});

test('base32 follows the RFC 4648 §10 test vectors, with and without padding', (t) => {
  const vectors: Array<[string, string, string]> = [
    ['', '', ''],
    ['f', 'MY', 'MY======'],
    ['fo', 'MZXQ', 'MZXQ===='],
    ['foo', 'MZXW6', 'MZXW6==='],
    ['foob', 'MZXW6YQ', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI', 'MZXW6YTBOI======'],
  ];
  for (const [plain, encoded, padded] of vectors) {
    t.is(base32Encode(ascii(plain)), encoded, plain);
    t.is(base32Decode(encoded).toString('ascii'), plain, encoded);
    t.is(base32Decode(padded).toString('ascii'), plain, padded);
  }
});

test('base32 round-trips random bytes of many lengths, including 0 and lengths not a multiple of 5', (t) => {
  for (const length of [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 16, 20, 32, 33, 64, 101]) {
    const bytes = randomBytes(length);
    const encoded = base32Encode(bytes);
    t.regex(encoded, /^[A-Z2-7]*$/);
    t.is(encoded.length, Math.ceil((length * 8) / 5), `length ${length}`);
    t.deepEqual(base32Decode(encoded), bytes, `length ${length}`);
  }
});

test('base32Decode accepts lower case and spaces', (t) => {
  t.is(base32Decode('mzxw6ytboi').toString('ascii'), 'foobar');
  t.is(base32Decode('mzxw 6ytb oi').toString('ascii'), 'foobar');
  t.is(base32Decode(' MzXw6 YtBoI== ').toString('ascii'), 'foobar');
});

test('base32Decode throws a TypeError for a character outside the alphabet', (t) => {
  for (const bad of ['MZXW1YTB', 'MZXW0YTB', 'MZXW8', 'MZ-XW', 'MZXW!', 'MZXWé', 'MZ.XW']) {
    t.throws(() => base32Decode(bad), { instanceOf: TypeError, message: /not base32/ }, bad);
  }
});

test('newTotpSecret: 20 random bytes as 32 base32 characters, different each time', (t) => {
  const a = newTotpSecret();
  const b = newTotpSecret();
  t.regex(a, /^[A-Z2-7]{32}$/);
  t.is(base32Decode(a).length, 20);
  t.not(a, b);
});

test('otpauthURL writes the key URI format with the label parts percent-encoded and a literal colon', (t) => {
  const url = otpauthURL({ issuer: 'Example Co', account: 'ann+mfa@example.com', secret: 'jbsw y3dp ehpk 3pxp' });
  t.is(
    url,
    'otpauth://totp/Example%20Co:ann%2Bmfa%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example%20Co&algorithm=SHA1&digits=6&period=30',
  );
});

test('otpauthURL refuses bad options with a TypeError naming them', (t) => {
  const ok = { issuer: 'Example', account: 'ann', secret: 'JBSWY3DPEHPK3PXP' };
  t.throws(() => otpauthURL({ ...ok, issuer: '' }), { instanceOf: TypeError, message: /issuer/ });
  t.throws(() => otpauthURL({ ...ok, issuer: 'Example: Admin' }), { instanceOf: TypeError, message: /issuer/ });
  t.throws(() => otpauthURL({ ...ok, account: '' }), { instanceOf: TypeError, message: /account/ });
  t.throws(() => otpauthURL({ ...ok, secret: '' }), { instanceOf: TypeError, message: /secret/ });
  t.throws(() => otpauthURL({ ...ok, secret: 'not base32!' }), { instanceOf: TypeError, message: /not base32/ });
});

test('the otpauth package parses our otpauthURL and its codes match ours (a library we did not write)', (t) => {
  const secretText = newTotpSecret();
  const url = otpauthURL({ issuer: 'Example Co', account: 'ann+mfa@example.com', secret: secretText });
  const parsed = OTPAuth.URI.parse(url);
  t.true(parsed instanceof OTPAuth.TOTP);
  const theirs = parsed as OTPAuth.TOTP;
  t.is(theirs.issuer, 'Example Co');
  t.is(theirs.label, 'ann+mfa@example.com');
  t.is(theirs.digits, 6);
  t.is(theirs.period, 30);
  t.is(theirs.algorithm, 'SHA1');
  t.is(theirs.secret.base32, secretText);
  const key = base32Decode(secretText);
  for (const timestamp of [0, 59_000, 1_111_111_109_000, 1_234_567_890_000, NOW, 2_000_000_000_000]) {
    const code = theirs.generate({ timestamp });
    t.is(matchTotp(key, code, timestamp, 0), totpStep(timestamp), `at ${timestamp}`);
    t.is(totp(key, timestamp), code, `at ${timestamp}`);
  }
});
