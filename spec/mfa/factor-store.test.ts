/** The factor store over every state backend: compare-and-set writes, long user ids, and updateFactors under a race. */
import test, { type ExecutionContext } from 'ava';
import { AuthError } from '../../lib/errors.js';
import {
  hashRecoveryCode,
  newRecoveryCodes,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
} from '../../lib/mfa/recovery.js';
import { isFactorStore } from '../../lib/mfa/options.js';
import { stateFactorStore, UNCHANGED, updateFactors, type FactorStore, type UserFactors } from '../../lib/mfa/store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { manualClock } from '../helpers/http.js';
import { useStateBackends, type OpenStore } from '../helpers/state-backends.js';

const backends: Array<[string, OpenStore]> = [['memory', async () => memoryStateStore()], ...useStateBackends(test)];

async function open(t: ExecutionContext, openState: OpenStore): Promise<FactorStore> {
  const state = await openState(t);
  t.teardown(() => state.close());
  return stateFactorStore(state);
}

const factors = (codes: string[]): UserFactors => ({
  totp: { secret: 'v1.kid.iv.body', createdAt: 1_700_000_000_000 },
  recoveryCodes: codes.map(hashRecoveryCode),
});

for (const [label, openState] of backends) {
  test(`${label}: an unknown user has no factors; create with rev undefined works once`, async (t) => {
    const store = await open(t, openState);
    t.is(await store.get('nobody'), undefined);
    const written = factors(['aaaa-bbbb-cccc-dddd']);
    t.true(await store.set('alice', written, undefined));
    const read = await store.get('alice');
    t.deepEqual(read?.factors, written);
    t.is(typeof read?.rev, 'string');
    t.false(
      await store.set('alice', factors(['eeee-ffff-gggg-hhhh']), undefined),
      'a second create finds the record and fails',
    );
    t.deepEqual((await store.get('alice'))?.factors, written, 'and wrote nothing');
    t.is(await store.get('bob'), undefined, 'other users are untouched');
  });

  test(`${label}: replace with the revision read works, and with a stale one fails`, async (t) => {
    const store = await open(t, openState);
    await store.set('alice', factors(['aaaa-bbbb-cccc-dddd']), undefined);
    const first = (await store.get('alice'))!;
    const second = factors(['eeee-ffff-gggg-hhhh']);
    t.true(await store.set('alice', second, first.rev));
    const now = (await store.get('alice'))!;
    t.deepEqual(now.factors, second);
    t.not(now.rev, first.rev);
    t.false(
      await store.set('alice', factors(['zzzz-zzzz-zzzz-zzzz']), first.rev),
      'the revision read before the write is stale',
    );
    t.deepEqual((await store.get('alice'))?.factors, second);
  });

  test(`${label}: delete takes the record at its revision only; deleting nothing when there is nothing is true`, async (t) => {
    const store = await open(t, openState);
    t.true(await store.set('alice', undefined, undefined), 'no record and none expected: nothing to delete');
    await store.set('alice', factors(['aaaa-bbbb-cccc-dddd']), undefined);
    const first = (await store.get('alice'))!;
    t.false(await store.set('alice', undefined, undefined), 'rev undefined expects no record, but there is one');
    await store.set('alice', { recoveryCodes: [] }, first.rev);
    t.false(await store.set('alice', undefined, first.rev), 'a stale revision deletes nothing');
    t.truthy(await store.get('alice'));
    t.true(await store.set('alice', undefined, (await store.get('alice'))!.rev));
    t.is(await store.get('alice'), undefined);
    t.false(await store.set('alice', undefined, first.rev), 'a revision of a record that is gone deletes nothing');
  });

  test(`${label}: a user id of 600 characters works, and two long ids that differ only at the end are two records`, async (t) => {
    const store = await open(t, openState);
    const long = 'u'.repeat(599);
    const [a, b] = [`${long}a`, `${long}b`];
    t.true(await store.set(a, factors(['aaaa-bbbb-cccc-dddd']), undefined));
    t.is(await store.get(b), undefined);
    t.true(await store.set(b, factors(['eeee-ffff-gggg-hhhh']), undefined));
    const read = (await store.get(a))!;
    t.deepEqual(read.factors, factors(['aaaa-bbbb-cccc-dddd']));
    t.true(await store.set(a, undefined, read.rev));
    t.is(await store.get(a), undefined);
    t.deepEqual((await store.get(b))?.factors, factors(['eeee-ffff-gggg-hhhh']));
  });

  test(`${label}: of 20 parallel updateFactors removing the same recovery code, exactly one succeeds`, async (t) => {
    const store = await open(t, openState);
    const codes = newRecoveryCodes();
    await store.set('alice', factors(codes), undefined);
    const spent = hashRecoveryCode(codes[3]!);
    const useCode = (current: UserFactors | undefined): UserFactors => {
      if (!current?.recoveryCodes?.includes(spent))
        throw new AuthError('bad_credentials', 'recovery code already used');
      return { ...current, recoveryCodes: current.recoveryCodes.filter((h) => h !== spent) };
    };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => updateFactors(store, 'alice', useCode)));
    const won = results.filter((r) => r.status === 'fulfilled');
    t.is(won.length, 1, results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')).join('\n'));
    for (const r of results)
      if (r.status === 'rejected')
        t.true(r.reason instanceof AuthError && r.reason.code === 'bad_credentials', String(r.reason));
    const left = (await store.get('alice'))!.factors.recoveryCodes!;
    t.is(left.length, RECOVERY_CODE_COUNT - 1);
    t.false(left.includes(spent));
    t.deepEqual(left, codes.filter((_, i) => i !== 3).map(hashRecoveryCode), 'the other codes are all still there');
  });

  test(`${label}: updateFactors returning UNCHANGED writes nothing (the revision stays) and resolves to what it found`, async (t) => {
    const store = await open(t, openState);
    t.is(await updateFactors(store, 'alice', () => UNCHANGED), undefined);
    t.is(await store.get('alice'), undefined, 'no record was made');
    await store.set('alice', factors(['aaaa-bbbb-cccc-dddd']), undefined);
    const before = (await store.get('alice'))!;
    t.deepEqual(await updateFactors(store, 'alice', () => UNCHANGED), before.factors);
    t.is((await store.get('alice'))!.rev, before.rev);
    const added = await updateFactors(store, 'alice', (f) => ({
      ...f,
      pendingTotp: { secret: 'v1.k.i.b', createdAt: 5 },
    }));
    t.deepEqual(added?.pendingTotp, { secret: 'v1.k.i.b', createdAt: 5 });
    t.not((await store.get('alice'))!.rev, before.rev, 'a change that writes moves the revision');
    t.is(await updateFactors(store, 'alice', () => undefined), undefined);
    t.is(await store.get('alice'), undefined, 'a change returning undefined deletes the record');
  });
}

test('factors over a memory state store never expire, whatever the clock says', async (t) => {
  const clock = manualClock();
  const store = stateFactorStore(memoryStateStore({ clock, sweepEvery: 1 }));
  await store.set('alice', factors(['aaaa-bbbb-cccc-dddd']), undefined);
  clock.advance(100 * 365 * 86_400_000);
  await store.set('bob', {}, undefined); // a create, which sweeps expired entries with sweepEvery 1
  t.deepEqual((await store.get('alice'))?.factors, factors(['aaaa-bbbb-cccc-dddd']));
});

test('updateFactors gives up after 16 lost races with an Error naming the user, and the change may not alter what the store holds', async (t) => {
  let reads = 0;
  const held: UserFactors = { recoveryCodes: ['h1'] };
  const losing: FactorStore = {
    get: async () => (reads++, { factors: held, rev: `r${reads}` }),
    set: async () => false,
  };
  await t.throwsAsync(
    updateFactors(losing, 'carol', (f) => {
      f!.recoveryCodes!.push('h2');
      return f;
    }),
    { message: /"carol".*kept changing/ },
  );
  t.is(reads, 16);
  t.deepEqual(held, { recoveryCodes: ['h1'] }, 'the change got a copy each try');
});

test('isFactorStore: a StateStore is not one (it gets wrapped), an object with get and set is', (t) => {
  t.false(isFactorStore(memoryStateStore()));
  t.true(isFactorStore({ get: async () => undefined, set: async () => true }));
  t.true(isFactorStore(stateFactorStore(memoryStateStore())));
  for (const bad of [null, undefined, 'lmdb://x', { get: () => undefined }, { set: () => true }, { get: 1, set: 2 }])
    t.false(isFactorStore(bad), String(bad));
});

test('API misuse is a TypeError naming what is wrong', async (t) => {
  t.throws(() => stateFactorStore({} as never), { instanceOf: TypeError, message: /store/ });
  const store = stateFactorStore(memoryStateStore());
  await t.throwsAsync(store.get(''), { instanceOf: TypeError, message: /userId/ });
  await t.throwsAsync(store.set('alice', [] as never, undefined), { instanceOf: TypeError, message: /factors/ });
  await t.throwsAsync(store.set('alice', {}, 7 as never), { instanceOf: TypeError, message: /rev/ });
  await t.throwsAsync(updateFactors(store, 'alice', 'x' as never), { instanceOf: TypeError, message: /change/ });
});

test('recovery codes: 10 by default, xxxx-xxxx-xxxx-xxxx in lower-case base32, all different; the hash ignores case, spaces and dashes', (t) => {
  const codes = newRecoveryCodes();
  t.is(codes.length, RECOVERY_CODE_COUNT);
  for (const c of codes) t.regex(c, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
  t.is(new Set(codes).size, codes.length);
  t.is(newRecoveryCodes(3).length, 3);
  const used = new Set(newRecoveryCodes(100).join('').replaceAll('-', ''));
  t.is(used.size, 32, 'every character of the alphabet turns up (the 80 bits are spread over all 16 characters)');
  const code = codes[0]!;
  t.is(normaliseRecoveryCode(` ${code.toUpperCase().replaceAll('-', ' ')} `), code.replaceAll('-', ''));
  t.is(hashRecoveryCode(code.toUpperCase().replaceAll('-', '')), hashRecoveryCode(code));
  t.regex(hashRecoveryCode(code), /^[0-9a-f]{64}$/);
  t.not(hashRecoveryCode(code), hashRecoveryCode(codes[1]!));
  t.is(normaliseRecoveryCode(42), '');
  t.throws(() => newRecoveryCodes(0), { instanceOf: TypeError, message: /count/ });
});
