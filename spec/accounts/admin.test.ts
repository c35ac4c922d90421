/**
 * The accounts admin over a real store (LMDB files): what `auth.accounts` and `authctl accounts` build on.
 */
import test from 'ava';
import { join } from 'node:path';
import { AccountError, accountsAdmin } from '../../lib/accounts/admin.js';
import { lmdbAccountStore } from '../../lib/accounts/lmdb-store.js';
import { verifyPassword } from '../../lib/accounts/password-hash.js';
import { tempDir } from '../helpers/temp.js';

const FAST = { ln: 10, r: 8, p: 1 };

function admin(t: Parameters<typeof tempDir>[0]) {
  const store = lmdbAccountStore(join(tempDir(t), 'accounts'));
  t.teardown(() => store.close());
  return { store, admin: accountsAdmin(store, { scrypt: FAST, clock: () => 1_800_000_000_000 }) };
}

test('create: a normalized address, a random id, the password only as its hash; found by address in any case, and by id', async (t) => {
  const { store, admin: accounts } = admin(t);
  const a = await accounts.create({ email: ' Ada@Example.com ', password: 'analytical engine', name: 'Ada' });
  t.is(a.email, 'ada@example.com');
  t.regex(a.id, /^acct_[A-Za-z0-9_-]{20}$/);
  t.false(a.emailConfirmed);
  t.is(a.createdAt, 1_800_000_000_000);
  const stored = await store.get(a.id);
  t.true(await verifyPassword('analytical engine', stored!.passwordHash!));
  t.false(JSON.stringify(stored).includes('analytical engine'));
  t.is((await accounts.find('ADA@example.COM'))?.id, a.id);
  t.is((await accounts.find(a.id))?.email, a.email);
  t.is(await accounts.find('nobody@example.com'), undefined);
  const b = await accounts.create({ email: 'b@example.com', confirmed: true });
  t.true(b.emailConfirmed);
  t.false('passwordHash' in b, 'an account without a password');
});

test('create refuses a bad address, a weak password and a taken address, each with its code, and writes nothing', async (t) => {
  const { admin: accounts } = admin(t);
  await accounts.create({ email: 'taken@example.com' });
  const cases = [
    [{ email: 'not an address' }, 'invalid_email', undefined],
    [{ email: 'x@example.com', password: 'short' }, 'weak_password', 'too_short'],
    [{ email: 'x@example.com', password: 'x@example.com' }, 'weak_password', 'same_as_identity'],
    [{ email: 'Taken@example.com' }, 'email_taken', undefined],
  ] as const;
  for (const [input, code, reason] of cases) {
    const err = await t.throwsAsync(accounts.create(input), { instanceOf: AccountError });
    t.is(err!.code, code);
    t.is(err!.reason, reason);
  }
  t.deepEqual(
    (await accounts.list()).map((a) => a.email),
    ['taken@example.com'],
  );
});

test('setPassword replaces the hash after the policy; delete frees the address; an unknown account is an error naming it', async (t) => {
  const { store, admin: accounts } = admin(t);
  const a = await accounts.create({ email: 'c@example.com', password: 'first password' });
  await t.throwsAsync(accounts.setPassword('c@example.com', '1234567'), {
    instanceOf: AccountError,
    message: /too_short/,
  });
  await accounts.setPassword('c@example.com', 'second password');
  const hash = (await store.get(a.id))!.passwordHash!;
  t.true(await verifyPassword('second password', hash));
  t.false(await verifyPassword('first password', hash));
  await t.throwsAsync(accounts.setPassword('nobody@example.com', 'whatever pw'), {
    instanceOf: AccountError,
    message: 'no account nobody@example.com',
  });
  t.true(await accounts.delete('C@example.com'));
  const gone = await t.throwsAsync(accounts.delete(a.id), { instanceOf: AccountError });
  t.is(gone!.code, 'not_found');
  t.is(gone!.message, `no account ${a.id}`);
  await t.throwsAsync(accounts.delete(''), { instanceOf: TypeError, message: /delete\(\): the account must be/ });
  await accounts.create({ email: 'c@example.com' });
});

test('find, list, create and setPassword never answer the password hash: hasPassword says whether there is one', async (t) => {
  const { admin: accounts } = admin(t);
  const made = await accounts.create({ email: 'h@example.com', password: 'a long password', confirmed: true });
  const views = [made, await accounts.find('h@example.com'), ...(await accounts.list())];
  views.push(await accounts.setPassword(made.id, 'another long password'));
  for (const v of views) {
    t.false('passwordHash' in v!, JSON.stringify(v));
    t.false(JSON.stringify(v).includes('$scrypt'), 'no PHC string anywhere');
    t.true(v!.hasPassword);
  }
  t.false((await accounts.create({ email: 'np@example.com' })).hasPassword);
});

test('an account is found by its address, its id or its session user id alike, once the user-id prefix is known', async (t) => {
  const { store } = admin(t);
  const accounts = accountsAdmin(store, { scrypt: FAST, userIdPrefix: () => Promise.resolve('local') });
  const a = await accounts.create({ email: 'u@example.com' });
  t.is(a.userId, `local_${a.id}`);
  for (const who of ['U@example.com', a.id, `local_${a.id}`]) t.is((await accounts.find(who))?.id, a.id, who);
  t.is(await accounts.find(`staff_${a.id}`), undefined, "another prefix is not this account's user id");
  t.is(await accounts.find('github_3f2a'), undefined);
  t.true(await accounts.delete(`local_${a.id}`));
  t.is(await store.get(a.id), undefined);
});
