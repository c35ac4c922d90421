/**
 * Password hashes (scrypt in PHC strings) and the password policy (NIST 800-63B, the Pwned Passwords
 * range API by k-anonymity), checked on their own before the accounts feature uses them. The range API
 * is a stand-in over real HTTP on 127.0.0.1.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash, scryptSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  checkScryptParams,
  hashPassword,
  needsRehash,
  OWASP_SCRYPT,
  verifyPassword,
} from '../../lib/accounts/password-hash.js';
import { BreachCheckError, hibpCheck, passwordProblem } from '../../lib/accounts/password-policy.js';
import { serve } from '../helpers/http.js';

/** Cheap parameters for the tests that hash many times; the OWASP default is checked once, below. */
const FAST = { ln: 10, r: 8, p: 1 };

test('a hash is a scrypt PHC string that verifies its password and no other, and holds neither it nor its SHA', async (t) => {
  const password = 'correct horse battery staple';
  const phc = await hashPassword(password, FAST);
  t.regex(phc, /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  t.true(await verifyPassword(password, phc));
  t.false(await verifyPassword('correct horse battery stapler', phc));
  t.false(await verifyPassword('', phc));
  for (const plain of [password, ...['sha1', 'sha256'].map((a) => createHash(a).update(password).digest('hex'))])
    t.false(phc.includes(plain));
  t.not(await hashPassword(password, FAST), phc, 'a fresh salt each time');
});

test('the hash is scrypt as RFC 7914 defines it: its test vector verifies', async (t) => {
  // RFC 7914 section 12: scrypt("password", "NaCl", N=1024, r=8, p=16, dkLen=64).
  const vector =
    'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640';
  const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64').replace(/=+$/, '');
  const phc = `$scrypt$ln=10,r=8,p=16$${Buffer.from('NaCl').toString('base64').replace(/=+$/, '')}$${b64(vector)}`;
  t.true(await verifyPassword('password', phc));
  t.false(await verifyPassword('passwore', phc));
});

test("OWASP's parameters are the default, and hashing under them works (128 MiB, past Node's default maxmem)", async (t) => {
  t.deepEqual({ ...OWASP_SCRYPT }, { ln: 17, r: 8, p: 1 });
  const phc = await hashPassword('a password of the default cost');
  t.true(phc.startsWith('$scrypt$ln=17,r=8,p=1$'));
  t.true(await verifyPassword('a password of the default cost', phc));
  t.false(needsRehash(phc));
});

test('a hash made under other parameters still verifies, and asks to be made again', async (t) => {
  const old = await hashPassword('pa55word-of-2019', { ln: 11, r: 8, p: 1 });
  t.true(await verifyPassword('pa55word-of-2019', old));
  t.true(needsRehash(old, FAST));
  t.false(needsRehash(old, { ln: 11, r: 8, p: 1 }));
  t.true(needsRehash('not a hash', FAST));
});

test('a damaged or hostile stored hash is a wrong password, never an exception or minutes of work', async (t) => {
  const good = await hashPassword('secret-enough', FAST);
  const cases = [
    '',
    'secret-enough',
    good.replace('$scrypt$', '$argon2id$'),
    good.replace('ln=10', 'ln=40'), // 2^40: refused before scrypt is asked
    good.replace('p=1', 'p=99'),
    good.slice(0, -30), // a hash cut to under 16 bytes
    good.replace(/\$[^$]+$/, '$' + 'A'.repeat(200)),
    undefined as unknown as string,
  ];
  for (const phc of cases) t.false(await verifyPassword('secret-enough', phc), String(phc));
});

test('passwords are compared after NFKC: the same text typed two ways is one password', async (t) => {
  const phc = await hashPassword('ﬁnance-２０２６', FAST); // a ligature and full-width digits
  t.true(await verifyPassword('finance-2026', phc));
  // The same bytes scrypt derives from the normalised text, computed independently of the module.
  const [, , , salt, hash] = phc.split('$');
  const expected = scryptSync('finance-2026', Buffer.from(salt!, 'base64'), 32, { N: 1024, r: 8, p: 1 });
  t.is(expected.toString('base64').replace(/=+$/, ''), hash);
});

test('scrypt parameters out of bounds are refused naming the option', (t) => {
  t.throws(() => checkScryptParams({ ln: 9, r: 8, p: 1 }, 'accounts.scrypt'), {
    instanceOf: TypeError,
    message: /^accounts\.scrypt\.ln must be an integer from 10 to 22 \(got 9\)$/,
  });
  t.throws(() => checkScryptParams({ ln: 17, r: 8.5, p: 1 }), { message: /scrypt\.r must be an integer/ });
  t.deepEqual(checkScryptParams({ ln: 17, r: 8, p: 1 }), { ln: 17, r: 8, p: 1 });
});

test('the policy: 8 to 256 characters counted as code points, not the owner, no composition rules', async (t) => {
  const owner = { email: 'Ada.Lovelace@example.com', name: 'Ada Lovelace' };
  t.is(await passwordProblem('1234567', owner), 'too_short');
  t.is(await passwordProblem('12345678', owner), undefined);
  t.is(await passwordProblem('aaaaaaaa', owner), undefined, 'no "a digit and a symbol"');
  t.is(await passwordProblem('😀'.repeat(8), owner), undefined, 'eight emoji are eight characters');
  t.is(await passwordProblem('😀'.repeat(7), owner), 'too_short', 'though fourteen UTF-16 units');
  t.is(await passwordProblem('x'.repeat(256), owner), undefined);
  t.is(await passwordProblem('x'.repeat(257), owner), 'too_long');
  t.is(await passwordProblem('ada.lovelace@EXAMPLE.com', owner), 'same_as_identity');
  t.is(await passwordProblem('ADA.LOVELACE', owner), 'same_as_identity', "the address's local part");
  t.is(await passwordProblem('ada lovelace', owner), 'same_as_identity', 'the name');
  t.is(await passwordProblem('ada lovelace!', owner), undefined);
  t.is(await passwordProblem('123456789012', owner, { minLength: 12, maxLength: 256 }), undefined);
  t.is(await passwordProblem('12345678901', owner, { minLength: 12, maxLength: 256 }), 'too_short');
});

/** A Pwned Passwords stand-in that knows `breached` (count 7) and pads every answer with decoys of count 0. */
async function rangeApi(t: ExecutionContext, breached: string[], padded: string[] = []) {
  const seen: IncomingMessage[] = [];
  const sha = (p: string) => createHash('sha1').update(p).digest('hex').toUpperCase();
  const api = await serve((req, res) => {
    seen.push(req);
    const prefix = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? '')?.[1];
    if (!prefix) return void res.writeHead(404).end();
    const lines = [
      ...breached
        .map(sha)
        .filter((h) => h.startsWith(prefix))
        .map((h) => `${h.slice(5)}:7`),
      ...padded
        .map(sha)
        .filter((h) => h.startsWith(prefix))
        .map((h) => `${h.slice(5)}:0`),
      '0018A45C4D1DEF81644B54AB7F969B88D65:0',
    ];
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  t.teardown(() => api.close());
  return { api, seen, sha };
}

test('the breach check sends only five hex digits of the SHA-1 and finds the rest in the answer', async (t) => {
  const { api, seen, sha } = await rangeApi(t, ['P@ssw0rd!'], ['only-a-decoy-here']);
  const check = hibpCheck({ url: api.url });
  t.true(await check('P@ssw0rd!'));
  t.false(await check('only-a-decoy-here'), 'a padding line (count 0) is not a breach');
  t.false(await check('never seen anywhere, 2026'));
  t.is(seen.length, 3);
  t.is(seen[0]!.url, `/range/${sha('P@ssw0rd!').slice(0, 5)}`);
  t.is(seen[0]!.headers['add-padding'], 'true');
  const sent = seen.map((r) => `${r.url} ${JSON.stringify(r.headers)}`).join('\n');
  for (const p of ['P@ssw0rd!', 'only-a-decoy-here']) t.false(sent.includes(sha(p).slice(5)), 'the suffix stays here');
  t.is(await passwordProblem('P@ssw0rd!', {}, { minLength: 8, maxLength: 256, breached: check }), 'breached');
});

test('a breach check that cannot be made rejects with BreachCheckError: an error status, a hang, a flood', async (t) => {
  const down = await serve((_req, res) => void res.writeHead(503).end('busy'));
  const hangs = await serve(() => undefined);
  const floods = await serve((_req, res) => {
    res.writeHead(200);
    res.end(Buffer.alloc(600 << 10, 0x41));
  });
  t.teardown(() => Promise.all([down, hangs, floods].map((s) => s.close())));
  await t.throwsAsync(hibpCheck({ url: down.url })('password1'), {
    instanceOf: BreachCheckError,
    message: /answered 503/,
  });
  await t.throwsAsync(hibpCheck({ url: hangs.url, timeoutMs: 300 })('password1'), {
    instanceOf: BreachCheckError,
    message: /failed/,
  });
  await t.throwsAsync(hibpCheck({ url: floods.url })('password1'), { instanceOf: BreachCheckError });
});
