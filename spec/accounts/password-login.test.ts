/**
 * A password login against a real store (LMDB files): the answers, the same work for an unknown address
 * as for a wrong password (counted, not timed: the medians are printed), and a hash made again under new
 * parameters.
 */
import test from 'ava';
import { join } from 'node:path';
import { accountsAdmin } from '../../lib/accounts/admin.js';
import { lmdbAccountStore } from '../../lib/accounts/lmdb-store.js';
import { needsRehash, verifyPassword } from '../../lib/accounts/password-hash.js';
import { passwordLogin } from '../../lib/accounts/password-login.js';
import { tempDir } from '../helpers/temp.js';

const FAST = { ln: 10, r: 8, p: 1 };

async function rig(t: Parameters<typeof tempDir>[0]) {
  const store = lmdbAccountStore(join(tempDir(t), 'accounts'));
  t.teardown(() => store.close());
  const admin = accountsAdmin(store, { scrypt: FAST });
  await admin.create({ email: 'ada@example.com', password: 'analytical engine', confirmed: true });
  await admin.create({ email: 'new@example.com', password: 'not confirmed yet' });
  await admin.create({ email: 'nopass@example.com', confirmed: true });
  /** Every hash check: the hash's parameters, as the derivation's cost. */
  const checks: string[] = [];
  const login = passwordLogin(store, {
    scrypt: FAST,
    verify: (password, phc) => (checks.push(phc.split('$')[2]!), verifyPassword(password, phc)),
  });
  return { store, admin, login, checks };
}

test('the answers: ok, unconfirmed only with the right password, and one "wrong" for the rest', async (t) => {
  const { login } = await rig(t);
  const ok = await login('ADA@example.com ', 'analytical engine');
  t.is(ok.result, 'ok');
  t.is(ok.result === 'ok' && ok.account.email, 'ada@example.com');
  t.is((await login('new@example.com', 'not confirmed yet')).result, 'unconfirmed');
  t.deepEqual(await login('new@example.com', 'a wrong password'), { result: 'wrong' }, 'no hint it is unconfirmed');
  t.deepEqual(await login('ada@example.com', 'difference engine'), { result: 'wrong' });
  t.deepEqual(await login('nobody@example.com', 'analytical engine'), { result: 'wrong' });
  t.deepEqual(await login('nopass@example.com', ''), { result: 'wrong' }, 'no password set: never a login');
  t.deepEqual(await login('not an address', 'x'), { result: 'wrong' });
});

test('an unknown address costs one derivation under the current parameters, as a wrong password does', async (t) => {
  const { login, checks } = await rig(t);
  const cases = {
    'wrong password': ['ada@example.com', 'difference engine'],
    'unknown address': ['nobody@example.com', 'difference engine'],
    'no password set': ['nopass@example.com', 'difference engine'],
    'not an address': ['@@', 'difference engine'],
  } as const;
  const medians: Record<string, number> = {};
  for (const [what, [email, password]] of Object.entries(cases)) {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      checks.length = 0;
      const started = process.hrtime.bigint();
      t.is((await login(email, password)).result, 'wrong');
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      t.deepEqual(checks, ['ln=10,r=8,p=1'], `${what}: one check under the current parameters`);
    }
    medians[what] = times.sort((a, b) => a - b)[25]!;
  }
  // Printed, not asserted: a loaded machine's time says nothing. The counts above are the proof.
  t.log(`median ms of 50 logins: ${JSON.stringify(medians)}`);
});

test('a hash made under older parameters is made again at a successful login, and only then', async (t) => {
  const { store } = await rig(t);
  const old = accountsAdmin(store, { scrypt: { ln: 11, r: 8, p: 1 } });
  const a = await old.create({ email: 'legacy@example.com', password: 'an old password', confirmed: true });
  const login = passwordLogin(store, { scrypt: FAST });
  t.is((await login('legacy@example.com', 'not it')).result, 'wrong');
  t.true(needsRehash((await store.get(a.id))!.passwordHash!, FAST), 'a wrong password changes nothing');
  t.is((await login('legacy@example.com', 'an old password')).result, 'ok');
  const hash = (await store.get(a.id))!.passwordHash!;
  t.false(needsRehash(hash, FAST));
  t.true(await verifyPassword('an old password', hash));
});
