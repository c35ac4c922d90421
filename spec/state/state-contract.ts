import type { ExecutionContext, TestFn } from 'ava';
import type { StateStore } from '../../lib/state/index.js';
import { manualClock } from '../helpers/http.js';

/** Opens a fresh, empty store on the given clock; the contract closes it. */
export type OpenState = (clock: () => number, t: ExecutionContext) => Promise<StateStore>;

/**
 * The behaviour every StateStore shares, as one test per row, so the memory, LMDB and MongoDB stores
 * are held to the same table. The UsedTokenStore rows are the verified provider's contract.
 */
export function stateStoreContract(test: TestFn, label: string, open: OpenState): void {
  const setup = async (t: ExecutionContext) => {
    const clock = manualClock(Date.now());
    const store = await open(clock, t);
    t.teardown(() => store.close().catch(() => {}));
    return { store, clock, now: clock() };
  };

  test(`${label}: create succeeds once while the key is live, and again once it expired`, async (t) => {
    const { store, clock, now } = await setup(t);
    t.true(await store.create('ns', 'k', { a: 1 }, now + 1000));
    t.false(await store.create('ns', 'k', { a: 2 }, now + 1000));
    t.deepEqual((await store.get('ns', 'k'))?.value, { a: 1 });
    clock.advance(1000);
    t.true(await store.create('ns', 'k', { a: 3 }, now + 5000), 'an expired entry is overwritten');
    t.deepEqual((await store.get('ns', 'k'))?.value, { a: 3 });
  });

  test(`${label}: get returns value, expiry and revision; expired entries stay readable until swept`, async (t) => {
    const { store, clock, now } = await setup(t);
    const value = {
      state: 'confirmed',
      tg: { id: 1234567890, first_name: 'Ålice ✓' },
      photo: Buffer.alloc(70_000, 7).toString('base64'),
      n: null,
      list: [1, 'two'],
    };
    await store.create('ns', 'k', value, now + 1000);
    const e = await store.get('ns', 'k');
    t.deepEqual(e?.value, value);
    t.is(e?.expiresAt, now + 1000);
    t.regex(e?.rev ?? '', /^[0-9a-f]{16}$/);
    t.is(await store.get('ns', 'missing'), undefined);
    clock.advance(2000);
    t.is((await store.get('ns', 'k'))?.expiresAt, now + 1000);
  });

  test(`${label}: namespaces do not see each other`, async (t) => {
    const { store, now } = await setup(t);
    t.true(await store.create('a', 'k', 'A', now + 1000));
    t.true(await store.create('b', 'k', 'B', now + 1000));
    t.is((await store.get('a', 'k'))?.value, 'A');
    t.is((await store.get('b', 'k'))?.value, 'B');
  });

  test(`${label}: replace needs the current revision and a live entry`, async (t) => {
    const { store, clock, now } = await setup(t);
    await store.create('ns', 'k', 1, now + 1000);
    const first = (await store.get('ns', 'k'))!;
    t.true(await store.replace('ns', 'k', first.rev, 2, now + 2000));
    const second = (await store.get('ns', 'k'))!;
    t.not(second.rev, first.rev);
    t.is(second.value, 2);
    t.is(second.expiresAt, now + 2000);
    t.false(await store.replace('ns', 'k', first.rev, 3, now + 2000), 'a stale revision');
    t.false(await store.replace('ns', 'missing', first.rev, 3, now + 2000));
    clock.advance(2000);
    t.false(await store.replace('ns', 'k', second.rev, 4, now + 9000), 'an expired entry');
  });

  test(`${label}: take consumes an entry once, and only at the revision read`, async (t) => {
    const { store, now } = await setup(t);
    await store.create('ns', 'k', 1, now + 1000);
    const e = (await store.get('ns', 'k'))!;
    t.false(await store.take('ns', 'k', 'ffffffffffffffff'));
    t.true(await store.take('ns', 'k', e.rev));
    t.false(await store.take('ns', 'k', e.rev));
    t.is(await store.get('ns', 'k'), undefined);
  });

  test(`${label}: remove deletes whatever the revision; sweep deletes only expired entries`, async (t) => {
    const { store, clock, now } = await setup(t);
    await store.create('ns', 'gone', 1, now + 1000);
    await store.remove('ns', 'gone');
    await store.remove('ns', 'never-there');
    t.is(await store.get('ns', 'gone'), undefined);
    await store.create('ns', 'short', 1, now + 1000);
    await store.create('ns', 'long', 1, now + 60_000);
    clock.advance(1000);
    t.is(await store.sweep(), 1);
    t.is(await store.get('ns', 'short'), undefined);
    t.truthy(await store.get('ns', 'long'));
  });

  test(`${label}: concurrent creates of one key: exactly one wins`, async (t) => {
    const { store, now } = await setup(t);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => store.create('ns', 'race', i, now + 1000)));
    t.is(results.filter(Boolean).length, 1);
  });

  test(`${label}: concurrent replaces from one revision: exactly one wins`, async (t) => {
    const { store, now } = await setup(t);
    await store.create('ns', 'k', 0, now + 1000);
    const { rev } = (await store.get('ns', 'k'))!;
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => store.replace('ns', 'k', rev, i + 1, now + 1000)),
    );
    t.is(results.filter(Boolean).length, 1);
  });

  test(`${label}: UsedTokenStore: markUsed is true once per id until the token expires`, async (t) => {
    const { store, clock, now } = await setup(t);
    t.true(await store.markUsed('jti-1', now + 120_000));
    t.false(await store.markUsed('jti-1', now + 120_000));
    t.true(await store.markUsed('jti-2', now + 120_000));
    clock.advance(60_000);
    t.false(await store.markUsed('jti-1', now + 120_000), 'still within its token lifetime');
    clock.advance(60_000);
    t.true(await store.markUsed('jti-1', now + 300_000), 'remembered only until the token expired');
    await t.throwsAsync(() => store.markUsed('', now), { instanceOf: TypeError });
  });

  test(`${label}: UsedTokenStore: an already expired id is still remembered for a minute`, async (t) => {
    const { store, clock, now } = await setup(t);
    t.true(await store.markUsed('old', now - 1000));
    clock.advance(59_000);
    t.false(await store.markUsed('old', now - 1000));
  });

  test(`${label}: UsedTokenStore: concurrent markUsed with one id: exactly one true`, async (t) => {
    const { store, now } = await setup(t);
    const results = await Promise.all(Array.from({ length: 32 }, () => store.markUsed('same-id', now + 60_000)));
    t.is(results.filter(Boolean).length, 1);
  });

  test(`${label}: bad keys are TypeErrors; a closed store rejects`, async (t) => {
    const { store, now } = await setup(t);
    await t.throwsAsync(() => store.create('', 'k', 1, now + 1), { instanceOf: TypeError });
    await t.throwsAsync(() => store.create('ns', '', 1, now + 1), { instanceOf: TypeError });
    await t.throwsAsync(() => store.create('ns', 'k', 1, Number.NaN), { instanceOf: TypeError });
    await store.close();
    await t.throwsAsync(() => store.get('ns', 'k'), { message: /closed/ });
  });
}
