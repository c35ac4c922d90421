/** User ids nobody can forge: the raw id is always hashed, so a chosen name cannot land on another user's id. */
import { createHash } from 'node:crypto';
import test from 'ava';
import { providerUserId } from '../../lib/user.js';
import { Client, startApp } from '../helpers/http.js';

async function idOf(app: { url: string }, user: string): Promise<string> {
  const res = await new Client(app.url).fetch('/auth/local/login', { method: 'POST', form: { user, passwd: 'pw' } });
  return ((await res.json()) as { id: string }).id;
}

/** SHA-1 straight from node:crypto: expected ids never come from the library's own helper. */
const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');

const options = (extra = {}) => ({
  secret: 'ids-test-secret-0123456789abcdef01234',
  providers: [{ kind: 'direct' as const, name: 'local', checker: (_u: string, p: string) => p === 'pw' }],
  ...extra,
});

test("a direct user named like the SHA-1 of another user's name does not get that user's id", async (t) => {
  const app = await startApp(options());
  t.teardown(() => app.close());
  const alice = await idOf(app, 'alice');
  t.is(alice, `local_${sha1('alice')}`);
  const forger = await idOf(app, sha1('alice'));
  t.not(forger, alice);
  t.is(forger, `local_${sha1(sha1('alice'))}`);
  t.is(await idOf(app, sha1('alice').toUpperCase()), `local_${sha1(sha1('alice').toUpperCase())}`);
});

test('keepHashedIds restores the original pass-through, collision included (the documented cost)', async (t) => {
  const app = await startApp(options({ keepHashedIds: true }));
  t.teardown(() => app.close());
  t.is(await idOf(app, sha1('alice')), await idOf(app, 'alice'));
});

test('providerUserId hashes every raw id; keepHashed passes 40-hex ones through', (t) => {
  // Known digests, written out (from `printf %s <value> | sha1sum`), so a wrong hash in the library cannot
  // agree with itself here.
  const hex = '6e34471f84557e1713012d64a7477c71bfdac631';
  const SHA1_OF_HEX = 'ee664e4b60596b2e48af135f7a5cf14c5513cc17';
  const SHA1_OF_BOB = '48181acd22b3edaebc8a447868a7df7ce629920a';
  t.is(sha1(hex), SHA1_OF_HEX, "the test's own SHA-1 agrees with sha1sum");
  t.is(providerUserId('p', hex), `p_${SHA1_OF_HEX}`, 'a 40-hex raw id is hashed like any other');
  t.is(providerUserId('p', 'bob'), `p_${SHA1_OF_BOB}`);
  t.is(providerUserId('p', hex, { keepHashed: true }), `p_${hex}`);
  t.is(providerUserId('p', 'bob', { keepHashed: true }), `p_${SHA1_OF_BOB}`);
  t.is(providerUserId('p', 'Bob'), `p_${sha1('Bob')}`, 'case is kept before hashing');
});
