/**
 * The personal token store over state stores: memory, and every persistent backend (LMDB files, a real
 * redis-server, a real PostgreSQL, the CongoDB stand-in for MongoDB). Times come from the test, never the wall.
 */
import test, { type ExecutionContext } from 'ava';
import { mintToken, tokenHash } from '../../lib/personal-tokens/format.js';
import { statePersonalTokenStore, TooManyTokens, type PersonalToken } from '../../lib/personal-tokens/store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { useEveryStateStore } from '../helpers/state-backends.js';

const NOW = 1_800_000_000_000;
let n = 0;
function token(userId: string, over: Partial<PersonalToken> = {}): PersonalToken & { secret: string } {
  const secret = mintToken();
  n++;
  return {
    id: `pat_${n}`,
    userId,
    user: { id: userId, name: userId, picture: '' },
    name: `token ${n}`,
    scopes: [],
    created: NOW,
    hash: tokenHash(secret),
    secret,
    ...over,
  };
}
const plain = ({ secret: _secret, ...t }: PersonalToken & { secret: string }): PersonalToken => t;

const backends = useEveryStateStore(test, () => NOW);

for (const [label, open] of backends) {
  const fresh = async (t: ExecutionContext) => {
    const state = await open(t);
    t.teardown(() => state.close().catch(() => {}));
    return statePersonalTokenStore(state);
  };

  test(`${label}: a token is found by its hash and listed for its user; the secret is nowhere in what is kept`, async (t) => {
    const store = await fresh(t);
    const a = token('u1', { scopes: ['read'] });
    t.true(await store.create(plain(a)));
    t.deepEqual(await store.findByHash(tokenHash(a.secret), NOW), plain(a));
    t.deepEqual(await store.list('u1', NOW), [plain(a)]);
    t.deepEqual(await store.list('u2', NOW), []);
    t.false(JSON.stringify(await store.list('u1', NOW)).includes(a.secret));
    t.is(await store.findByHash(tokenHash(mintToken()), NOW), undefined, 'an unknown token is not found');
  });

  test(`${label}: an expired token is neither found nor listed`, async (t) => {
    const store = await fresh(t);
    const a = token('u1', { expires: NOW + 60_000 });
    await store.create(plain(a));
    t.truthy(await store.findByHash(a.hash, NOW + 59_999));
    t.is(await store.findByHash(a.hash, NOW + 60_000), undefined);
    t.deepEqual(await store.list('u1', NOW + 60_000), []);
  });

  test(`${label}: with a limit, of 10 racing creations at most the limit are kept; the others keep nothing`, async (t) => {
    const store = await fresh(t);
    const many = Array.from({ length: 10 }, () => token('u1'));
    const answers = await Promise.allSettled(many.map((x) => store.create(plain(x), 3)));
    const kept = many.filter((_, i) => answers[i]!.status === 'fulfilled');
    t.is(kept.length, 3, answers.map((a) => a.status).join(','));
    for (const a of answers) if (a.status === 'rejected') t.true(a.reason instanceof TooManyTokens, String(a.reason));
    t.deepEqual((await store.list('u1', NOW)).map((x) => x.id).sort(), kept.map((x) => x.id).sort());
    for (const x of many)
      if (!kept.includes(x)) t.is(await store.findByHash(x.hash, NOW), undefined, 'a refused token is not kept');
  });

  test(`${label}: revoke takes the user's own token only; revokeAll takes every one of the user's`, async (t) => {
    const store = await fresh(t);
    const [a, b, c] = [token('u1'), token('u1'), token('u2')];
    for (const x of [a, b, c]) await store.create(plain(x));
    t.is(await store.revoke('u2', a.id), undefined, "another user's id is not theirs to revoke");
    t.truthy(await store.findByHash(a.hash, NOW));
    t.is((await store.revoke('u1', a.id))?.hash, a.hash, 'the token revoked is handed back');
    t.is(await store.revoke('u1', a.id), undefined, 'once');
    t.is(await store.findByHash(a.hash, NOW), undefined);
    t.deepEqual(
      (await store.list('u1', NOW)).map((x) => x.id),
      [b.id],
    );
    t.deepEqual(
      (await store.revokeAll('u1')).map((x) => x.id),
      [b.id],
    );
    t.deepEqual(await store.list('u1', NOW), []);
    t.truthy(await store.findByHash(c.hash, NOW), "the other user's token stays");
  });

  test(`${label}: a duplicate id or hash is refused; ten creates for one user at once are all listed`, async (t) => {
    const store = await fresh(t);
    const a = token('u1');
    t.true(await store.create(plain(a)));
    t.false(await store.create({ ...plain(a), hash: tokenHash(mintToken()) }), 'the id is taken');
    t.false(await store.create({ ...plain(a), id: 'pat_other' }), 'the hash is taken');
    const many = Array.from({ length: 10 }, () => token('u3'));
    t.deepEqual(await Promise.all(many.map((x) => store.create(plain(x)))), Array(10).fill(true));
    t.is((await store.list('u3', NOW)).length, 10, 'the index lost none to the race');
  });

  test(`${label}: touch records a use at most once a minute`, async (t) => {
    const store = await fresh(t);
    const a = token('u1');
    await store.create(plain(a));
    await store.touch(plain(a), NOW + 1000);
    const first = (await store.findByHash(a.hash, NOW))!;
    t.is(first.lastUsed, NOW + 1000);
    await store.touch(first, NOW + 30_000);
    t.is((await store.findByHash(a.hash, NOW))!.lastUsed, NOW + 1000, 'within the minute: not written');
    await store.touch(first, NOW + 61_000);
    t.is((await store.findByHash(a.hash, NOW))!.lastUsed, NOW + 61_000);
  });

  test(`${label}: a revocation that a use recorded meanwhile (touch) overtakes still revokes: the token is gone, not left live out of the list`, async (t) => {
    const state = await open(t);
    t.teardown(() => state.close().catch(() => {}));
    const a = token('u1');
    // The use lands between the revocation's read of the token and its take: what a request just before does.
    let touched = false;
    const racing: StateStore = {
      ...{ create: (...a) => state.create(...a), get: (ns, key) => state.get(ns, key) },
      ...{ replace: (...a) => state.replace(...a), remove: (...a) => state.remove(...a) },
      ...{ sweep: () => state.sweep(), markUsed: (...a) => state.markUsed(...a), close: () => state.close() },
      async take(ns, key, rev) {
        if (!touched && ns === 'pat') {
          touched = true;
          await statePersonalTokenStore(state).touch(plain(a), NOW + 1000);
        }
        return state.take(ns, key, rev);
      },
    };
    const store = statePersonalTokenStore(racing);
    await store.create(plain(a));
    t.is((await store.revoke('u1', a.id))?.id, a.id, 'revoked');
    t.true(touched, 'the use came between');
    t.is(await store.findByHash(a.hash, NOW), undefined, 'no longer found');
    t.deepEqual(await store.list('u1', NOW), []);
  });
}

test('an expired token leaves its user index when the tokens are listed: the index holds live tokens only', async (t) => {
  const state = memoryStateStore({ clock: () => NOW });
  const store = statePersonalTokenStore(state);
  const old = token('u1', { expires: NOW + 1000 });
  const kept = token('u1');
  await store.create(plain(old));
  await store.create(plain(kept));
  t.deepEqual(
    (await store.list('u1', NOW + 1000)).map((x) => x.id),
    [kept.id],
  );
  const index = await state.get<{ tokens: Array<{ id: string }> }>('pat-user', 'u1');
  t.deepEqual(
    index!.value.tokens.map((x) => x.id),
    [kept.id],
  );
});
