import type { ExecutionContext, TestFn } from 'ava';
import type { Account, AccountStore } from '../../lib/accounts/store.js';

/** Opens a fresh, empty store; the contract closes it. */
export type OpenAccounts = (t: ExecutionContext) => Promise<AccountStore>;

let n = 0;
/** An account with a fresh id and address. */
export function account(over: Partial<Account> = {}): Account {
  n++;
  return {
    id: `acct-${String(n).padStart(6, '0')}`,
    email: `user${n}@example.com`,
    emailConfirmed: false,
    name: `User ${n}`,
    passwordHash: '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2E$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

/**
 * What every AccountStore does, one test per row, so the memory, LMDB, PostgreSQL and MongoDB stores (and a
 * store an application writes over its own users table) are held to one table: run it with your opener.
 */
export function accountStoreContract(test: TestFn, label: string, open: OpenAccounts): void {
  const setup = async (t: ExecutionContext) => {
    const store = await open(t);
    t.teardown(() => store.close().catch(() => {}));
    return store;
  };

  test(`${label}: an account created is found by id and by address, with a revision; the fields come back as written`, async (t) => {
    const store = await setup(t);
    const a = account({ name: 'Ålice ✓' });
    t.true(await store.create(a));
    const byId = await store.get(a.id);
    const { rev, ...fields } = byId!;
    t.deepEqual(fields, a);
    t.is(typeof rev, 'string');
    t.deepEqual(await store.findByEmail(a.email), byId);
    t.is(await store.get('no-such-id'), undefined);
    t.is(await store.findByEmail('nobody@example.com'), undefined);
  });

  test(`${label}: optional fields stay absent, not null`, async (t) => {
    const store = await setup(t);
    const { name: _n, passwordHash: _p, ...bare } = account();
    t.true(await store.create(bare));
    const got = await store.get(bare.id);
    t.false('name' in got! || 'passwordHash' in got!);
  });

  test(`${label}: a taken address or id refuses the second create and keeps the first account`, async (t) => {
    const store = await setup(t);
    const a = account();
    t.true(await store.create(a));
    t.false(await store.create(account({ email: a.email })), 'the same address');
    t.false(await store.create(account({ id: a.id })), 'the same id');
    t.is((await store.findByEmail(a.email))?.id, a.id);
  });

  test(`${label}: of 20 parallel sign-ups with one address, exactly one creates`, async (t) => {
    const store = await setup(t);
    const email = account().email;
    const results = await Promise.all(Array.from({ length: 20 }, () => store.create(account({ email }))));
    t.is(results.filter(Boolean).length, 1);
  });

  test(`${label}: update writes against the revision read, and only once from one revision`, async (t) => {
    const store = await setup(t);
    const a = account();
    await store.create(a);
    const cur = (await store.get(a.id))!;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.update({ ...a, name: `name ${i}`, updatedAt: a.updatedAt + 1 }, cur.rev),
      ),
    );
    t.is(results.filter((r) => r === 'updated').length, 1);
    t.true(results.every((r) => r === 'updated' || r === 'conflict'));
    const after = (await store.get(a.id))!;
    t.not(after.rev, cur.rev);
    t.is(await store.update({ ...a, name: 'stale' }, cur.rev), 'conflict', 'an old revision');
    t.is(await store.update(account(), after.rev), 'conflict', 'an account that is not there');
  });

  test(`${label}: a new address moves the account's index; a taken one is refused and nothing changes`, async (t) => {
    const store = await setup(t);
    const [a, b] = [account(), account()];
    await store.create(a);
    await store.create(b);
    const cur = (await store.get(a.id))!;
    t.is(await store.update({ ...a, email: b.email }, cur.rev), 'email_taken');
    t.deepEqual(await store.get(a.id), cur, 'unchanged');
    t.is(await store.update({ ...a, email: 'new-address@example.com' }, cur.rev), 'updated');
    t.is((await store.findByEmail('new-address@example.com'))?.id, a.id);
    t.is(await store.findByEmail(a.email), undefined, 'the old address is free');
    t.true(await store.create(account({ email: a.email })), 'and can sign up again');
  });

  test(`${label}: delete, with or without a revision; the address is free again`, async (t) => {
    const store = await setup(t);
    const a = account();
    await store.create(a);
    const cur = (await store.get(a.id))!;
    t.false(await store.delete(a.id, 'not-the-revision'));
    t.truthy(await store.get(a.id));
    t.true(await store.delete(a.id, cur.rev));
    t.false(await store.delete(a.id), 'already gone');
    t.is(await store.findByEmail(a.email), undefined);
    t.true(await store.create(account({ email: a.email })));
    const b = account();
    await store.create(b);
    t.true(await store.delete(b.id), 'without a revision');
  });

  test(`${label}: list pages through the accounts in id order`, async (t) => {
    const store = await setup(t);
    const all = Array.from({ length: 7 }, () => account());
    for (const a of [...all].reverse()) await store.create(a);
    const first = await store.list({ limit: 3 });
    t.deepEqual(
      first.map((a) => a.id),
      all.slice(0, 3).map((a) => a.id),
    );
    const rest = await store.list({ after: first[2]!.id, limit: 10 });
    t.deepEqual(
      rest.map((a) => a.id),
      all.slice(3).map((a) => a.id),
    );
    t.deepEqual(await store.list({ after: all[6]!.id }), []);
    await t.throwsAsync(store.list({ limit: 0 }), { instanceOf: TypeError, message: /limit/ });
  });

  test(`${label}: a broken account is refused naming the field, and a plain password never reaches the store`, async (t) => {
    const store = await setup(t);
    await t.throwsAsync(store.create(account({ email: 'Not@Normalized.com ' })), { message: /account\.email/ });
    await t.throwsAsync(store.create(account({ passwordHash: 'hunter22' })), {
      message: /PHC string, never a password/,
    });
    await t.throwsAsync(store.create(account({ id: '' })), { message: /account\.id/ });
    t.deepEqual(await store.list(), []);
  });

  test(`${label}: after close, calls reject`, async (t) => {
    const store = await open(t);
    await store.close();
    await t.throwsAsync(store.get('x'), { message: /close/ });
  });
}
