/**
 * The grant store's per-client side (lib/authorization-server/client-index.ts) on every state store: revokeClient()
 * reaching every family of a client whoever's, the users of a client indexed by compare-and-set, the cap that keeps
 * a client's index bounded, and which clients are indexed at all.
 */
import test from 'ava';
import { sha256 } from '../../lib/authorization-server/grant-entries.js';
import { grantStore } from '../../lib/authorization-server/grant-store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { authorized, CODE_TTL, everyBackend, readsFirst, REFRESH_TTL, rig } from './rig.js';

const API = 'https://api.example/';
const NS = 'as-client-users';

for (const [label, open] of everyBackend(test)) {
  test(`${label}: revokeClient revokes every family of the client, whoever's, and forgets their consents; other clients' stay`, async (t) => {
    const r = await rig(t, open);
    const alice1 = await authorized(r, { clientId: 'reg' });
    const alice2 = await authorized(r, { clientId: 'reg' });
    const bob = await authorized(r, { clientId: 'reg', userId: 'bob' });
    const other = await authorized(r, { clientId: 'other' });
    await r.store.rememberConsent('carol', 'reg', ['read'], [API]);
    const own = await r.store.startFamily({ userId: 'reg', clientId: 'reg', scopes: [], resources: [API] });

    const ids = [alice1, alice2, bob].map((x) => x.family.id).concat(own.id);
    t.deepEqual((await r.store.revokeClient('reg')).sort(), ids.sort());
    t.deepEqual(r.told.flatMap((x) => x.ids).sort(), ids.sort(), 'each told once');
    t.true(r.told.every((x) => x.reason === 'revoked'));
    for (const id of ids) t.true(await r.store.isRevoked(id));
    t.deepEqual(await r.store.refresh(bob.refreshToken, { clientId: 'reg' }), {
      error: 'invalid_grant',
      description: 'refresh_token is unknown, expired or revoked',
    });
    t.false(await r.store.hasConsent('carol', 'reg', ['read'], [API]), 'a consent without a family, forgotten');
    t.deepEqual(
      (await r.store.listGrants('alice')).map((g) => g.clientId),
      ['other'],
    );
    t.false(await r.store.isRevoked(other.family.id));
    t.is(await r.state.get(NS, sha256('reg')), undefined, 'the index goes with its users');
    t.deepEqual(await r.store.revokeClient('reg'), []);
    t.deepEqual(await r.store.revokeClient(''), []);
  });

  test(`${label}: users granted one client at once are all indexed under it`, async (t) => {
    const r = await rig(t, open);
    // All six read the client's index before any writes it: the race a compare-and-set settles, made certain.
    const racing = grantStore(readsFirst(r.state, NS, 6), {
      codeTTLMs: CODE_TTL,
      refreshTTLMs: REFRESH_TTL,
      clock: r.now,
    });
    const all = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((userId) => authorized({ ...r, store: racing }, { userId })),
    );
    t.deepEqual(
      (await r.store.revokeClient('app')).sort(),
      all.map((x) => x.family.id).sort(),
      'none lost to the race',
    );
  });

  test(`${label}: a user's line lasts as long as their grants may, and the entry with its last line`, async (t) => {
    const r = await rig(t, open);
    await authorized(r, { userId: 'alice' });
    r.advance(REFRESH_TTL);
    await authorized(r, { userId: 'bob' });
    r.advance(REFRESH_TTL + 1);
    // Alice's family and the slack of her index have both passed: only Bob is reached.
    const entry = await r.state.get<{ users: Array<{ id: string }> }>(NS, sha256('app'));
    t.deepEqual(
      entry?.value.users.map((u) => u.id),
      ['alice', 'bob'],
      'as written: ended lines leave at the next write',
    );
    await authorized(r, { userId: 'carol' });
    const after = await r.state.get<{ users: Array<{ id: string }> }>(NS, sha256('app'));
    t.deepEqual(
      after?.value.users.map((u) => u.id),
      ['bob', 'carol'],
    );
    r.advance(3 * REFRESH_TTL);
    const last = await r.state.get(NS, sha256('app'));
    t.true(last === undefined || last.expiresAt <= r.now(), 'no entry outlives its lines');
  });
}

test("a client's index keeps maxUsersPerClient users: past it the line that ends first goes", async (t) => {
  const r = await rig(t, async (_t, clock) => memoryStateStore({ clock }), { maxUsersPerClient: 2 });
  await authorized(r, { userId: 'alice' });
  r.advance(60_000);
  const bob = await authorized(r, { userId: 'bob' });
  r.advance(60_000);
  const carol = await authorized(r, { userId: 'carol' });
  t.deepEqual(
    (await r.store.revokeClient('app')).sort(),
    [bob.family.id, carol.family.id].sort(),
    "alice's line ended first: out of the index, out of reach",
  );
  t.is((await r.store.listGrants('alice')).length, 1, 'her grant itself is not revoked by the cap');
});

test('only the clients indexClient names are indexed; revokeClient reaches no family of another', async (t) => {
  const r = await rig(t, async (_t, clock) => memoryStateStore({ clock }), {
    indexClient: (clientId) => clientId === 'reg',
  });
  const reg = await authorized(r, { clientId: 'reg' });
  const app = await authorized(r, { clientId: 'app' });
  t.is(await r.state.get(NS, sha256('app')), undefined, 'no index written');
  t.deepEqual(await r.store.revokeClient('app'), []);
  t.false(await r.store.isRevoked(app.family.id));
  t.deepEqual(await r.store.revokeClient('reg'), [reg.family.id]);
});

test('indexClient and maxUsersPerClient are checked', (t) => {
  const state = memoryStateStore();
  const base = { codeTTLMs: 60_000, refreshTTLMs: REFRESH_TTL, clock: Date.now };
  t.throws(() => grantStore(state, { ...base, indexClient: 'reg' as never }), {
    instanceOf: TypeError,
    message: 'grantStore() requires indexClient as a function',
  });
  t.throws(() => grantStore(state, { ...base, maxUsersPerClient: 0 }), {
    instanceOf: TypeError,
    message: 'grantStore() requires maxUsersPerClient as a positive integer',
  });
});
