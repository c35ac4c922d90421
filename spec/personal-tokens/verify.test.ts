/**
 * A bearer token to its owner: the checksum before any store read, the cache before the store, a revocation in
 * another process seen once the cache's ttl passes (one in this process at once), the use recorded once a minute.
 * A counting wrapper around a real memory state store says what reached the store; the clock is the test's.
 */
import test from 'ava';
import { tokenCache } from '../../lib/personal-tokens/cache.js';
import { mintToken, tokenHash } from '../../lib/personal-tokens/format.js';
import { statePersonalTokenStore, type PersonalToken } from '../../lib/personal-tokens/store.js';
import { tokenVerifier } from '../../lib/personal-tokens/verify.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { manualClock } from '../helpers/http.js';

function rig(ttlMs = 30_000) {
  const clock = manualClock();
  const state = memoryStateStore({ clock });
  const calls: string[] = [];
  const counted = new Proxy(state, {
    get(target, prop: keyof StateStore) {
      const v = target[prop];
      return typeof v === 'function'
        ? (...args: unknown[]) => (calls.push(String(prop)), (v as (...a: unknown[]) => unknown).apply(target, args))
        : v;
    },
  });
  const store = statePersonalTokenStore(counted);
  const verifier = tokenVerifier({ store, cache: tokenCache({ ttlMs }), prefix: 'akp', clock });
  const add = async (over: Partial<PersonalToken> = {}) => {
    const secret = mintToken('akp');
    const record: PersonalToken = {
      ...{ id: `pat_${secret.slice(4, 12)}`, userId: 'u1', user: { id: 'u1', name: 'Ann', picture: '' } },
      ...{ name: 'ci', scopes: [] },
      ...{ created: clock(), hash: tokenHash(secret), ...over },
    };
    await store.create(record);
    calls.length = 0;
    return { secret, record };
  };
  return { clock, store, verifier, calls, add, settle: () => new Promise((r) => setImmediate(r)) };
}

test('a mistyped or made-up token is refused without a store read', async (t) => {
  const r = rig();
  const { secret } = await r.add();
  const typo = secret.slice(0, -1) + (secret.endsWith('0') ? '1' : '0');
  t.is(await r.verifier.verify(typo), undefined);
  t.is(await r.verifier.verify('akp_definitely-not-a-token'), undefined);
  t.is(await r.verifier.verify('Bearer'), undefined);
  t.deepEqual(r.calls, []);
});

test('the owner is found once in the store, then in the cache: a hot token reads no store', async (t) => {
  const r = rig();
  const { secret } = await r.add({ userId: 'alice' });
  t.is((await r.verifier.verify(secret))?.userId, 'alice');
  await r.settle();
  const afterFirst = r.calls.filter((c) => c === 'get').length;
  t.true(afterFirst >= 1);
  r.calls.length = 0;
  for (let i = 0; i < 20; i++) t.is((await r.verifier.verify(secret))?.userId, 'alice');
  await r.settle();
  t.deepEqual(r.calls, [], 'twenty uses within the minute: no store call at all');
});

test('an unknown well-formed token is looked up once per ttl, not once per request', async (t) => {
  const r = rig();
  const stranger = mintToken('akp');
  for (let i = 0; i < 10; i++) t.is(await r.verifier.verify(stranger), undefined);
  t.is(r.calls.filter((c) => c === 'get').length, 1);
});

test('revoked in another process: still taken until the ttl passes, refused after; revoked here: refused at once', async (t) => {
  const r = rig(30_000);
  const a = await r.add();
  const b = await r.add();
  t.truthy(await r.verifier.verify(a.secret));
  t.truthy(await r.verifier.verify(b.secret));
  // "Another process": the store alone learns of it.
  await r.store.revoke('u1', a.record.id);
  r.clock.advance(29_000);
  t.truthy(await r.verifier.verify(a.secret), 'within the stated delay the cached entry answers');
  r.clock.advance(1_000);
  t.is(await r.verifier.verify(a.secret), undefined, 'after it, the store is asked and says no');
  // This process: the revocation drops the entry.
  await r.store.revoke('u1', b.record.id);
  r.verifier.revoked(b.record);
  t.is(await r.verifier.verify(b.secret), undefined);
});

test('a token is refused from its expiry on, cached or not', async (t) => {
  const r = rig(60_000);
  const { secret, record } = await r.add({ expires: manualClock()() + 10_000 });
  r.clock.advance(record.expires! - r.clock() - 1);
  t.truthy(await r.verifier.verify(secret));
  r.clock.advance(1);
  t.is(await r.verifier.verify(secret), undefined);
});

test('a use is recorded once a minute however hot the token', async (t) => {
  const r = rig(10 * 60_000);
  const { secret, record } = await r.add();
  for (let i = 0; i < 30; i++) {
    await r.verifier.verify(secret);
    r.clock.advance(5_000); // 150 s in all
  }
  await r.settle();
  t.is(r.calls.filter((c) => c === 'replace').length, 3, 'at 0 s, 60 s and 120 s');
  t.is((await r.store.findByHash(record.hash, r.clock()))!.lastUsed, record.created + 120_000);
});

test('a lookup under way when the token is revoked here does not put it back in the cache: the next use is refused', async (t) => {
  const r = rig(30_000);
  const { secret, record } = await r.add();
  // The store's answer waits until the test lets it go: the revocation comes between the read and the answer.
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const slow = {
    ...r.store,
    findByHash: (hash: string, now: number) => r.store.findByHash(hash, now).then(async (found) => (await gate, found)),
  };
  const verifier = tokenVerifier({ store: slow, cache: tokenCache({ ttlMs: 30_000 }), prefix: 'akp', clock: r.clock });
  const inFlight = verifier.verify(secret);
  await r.settle();
  await r.store.revoke('u1', record.id);
  verifier.revoked(record);
  letGo();
  await inFlight; // begun before the revocation: either answer is one a client could have had
  t.is(await verifier.verify(secret), undefined, 'the use after the revocation answered');
});
