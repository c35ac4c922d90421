/**
 * The grant store's per-user side (lib/authorization-server/grant-index.ts, consents.ts) on every state store: the
 * connected apps a user sees, revoking one or all, the caps that keep a user's index bounded, and remembered consent.
 */
import test from 'ava';
import { sha256 } from '../../lib/authorization-server/grant-entries.js';
import { authorized, DAY, everyBackend, NOW, REFRESH_TTL, rig } from './rig.js';

const API = 'https://api.example/';
const OTHER_API = 'https://other.example/';

for (const [label, open] of everyBackend(test)) {
  test(`${label}: listGrants shows one line per client, the union of its live families, most recently used first`, async (t) => {
    const r = await rig(t, open);
    const a1 = await authorized(r, { clientId: 'a', scopes: ['openid', 'read'], resources: [API] });
    r.advance(60_000);
    await authorized(r, { clientId: 'b', scopes: ['openid'], resources: [] });
    r.advance(60_000);
    await authorized(r, { clientId: 'a', scopes: ['write'], resources: [OTHER_API] });
    await authorized(r, { clientId: 'a', userId: 'bob' });
    r.advance(60_000);
    t.deepEqual(await r.store.listGrants('alice'), [
      {
        clientId: 'a',
        scopes: ['openid', 'read', 'write'],
        resources: [API, OTHER_API],
        firstUsed: NOW,
        lastUsed: NOW + 120_000,
      },
      { clientId: 'b', scopes: ['openid'], resources: [], firstUsed: NOW + 60_000, lastUsed: NOW + 60_000 },
    ]);
    // A refresh of the oldest family is a use of client `a`: still first, used later.
    const one = await r.store.refresh(a1.refreshToken, { clientId: 'a' });
    t.false('error' in one);
    t.is((await r.store.listGrants('alice'))[0]!.lastUsed, NOW + 180_000);
    t.deepEqual(await r.store.listGrants('carol'), []);
  });

  test(`${label}: touch marks a family used, at most once a minute`, async (t) => {
    const r = await rig(t, open);
    const { family } = await authorized(r);
    r.advance(30_000);
    await r.store.touch(family.id);
    t.is((await r.store.listGrants('alice'))[0]!.lastUsed, NOW, 'within the minute: not written');
    r.advance(60_000);
    await r.store.touch(family.id);
    t.is((await r.store.listGrants('alice'))[0]!.lastUsed, NOW + 90_000);
    await r.store.touch('no-such-family');
  });

  test(`${label}: revokeGrant revokes every family of one client of one user, and forgets the consent`, async (t) => {
    const r = await rig(t, open);
    const a1 = await authorized(r, { clientId: 'a' });
    const a2 = await authorized(r, { clientId: 'a' });
    const b = await authorized(r, { clientId: 'b' });
    const bobs = await authorized(r, { clientId: 'a', userId: 'bob' });
    await r.store.rememberConsent('alice', 'a', ['read'], [API]);
    t.deepEqual((await r.store.revokeGrant('alice', 'a')).sort(), [a1.family.id, a2.family.id].sort());
    t.deepEqual(r.told, [{ ids: [a1.family.id, a2.family.id], reason: 'revoked' }]);
    for (const x of [a1, a2]) {
      t.true(await r.store.isRevoked(x.family.id));
      t.is(((await r.store.refresh(x.refreshToken, { clientId: 'a' })) as { error: string }).error, 'invalid_grant');
    }
    t.false(await r.store.isRevoked(b.family.id), "the user's other client keeps its grant");
    t.false(await r.store.isRevoked(bobs.family.id), "another user's grant to the same client stays");
    t.false(await r.store.hasConsent('alice', 'a', ['read'], [API]), 'asked again next time');
    t.deepEqual(
      (await r.store.listGrants('alice')).map((g) => g.clientId),
      ['b'],
    );
    t.deepEqual(await r.store.revokeGrant('alice', 'a'), [], 'nothing left to revoke');
  });

  test(`${label}: revokeUser revokes every family of the user and forgets the user's consents`, async (t) => {
    const r = await rig(t, open);
    const mine = [await authorized(r, { clientId: 'a' }), await authorized(r, { clientId: 'b' })];
    const svc = await r.store.startFamily({ userId: 'alice', clientId: 'c', scopes: [], resources: [] });
    const bobs = await authorized(r, { clientId: 'a', userId: 'bob' });
    await r.store.rememberConsent('alice', 'b', ['read'], []);
    await r.store.rememberConsent('bob', 'b', ['read'], []);
    const ids = [...mine.map((x) => x.family.id), svc.id];
    t.deepEqual((await r.store.revokeUser('alice')).sort(), ids.sort());
    for (const id of ids) t.true(await r.store.isRevoked(id));
    t.deepEqual(await r.store.listGrants('alice'), []);
    t.false(await r.store.hasConsent('alice', 'b', ['read'], []));
    t.true(await r.store.hasConsent('bob', 'b', ['read'], []), "another user's consent stays");
    t.false(await r.store.isRevoked(bobs.family.id));
    t.deepEqual(await r.store.revokeUser('alice'), []);
  });

  test(`${label}: a client's families are capped: past it the oldest is revoked, but families that ended go first`, async (t) => {
    const r = await rig(t, open, { maxFamiliesPerClient: 3 });
    const [f1, f2] = [await authorized(r, { clientId: 'a' }), await authorized(r, { clientId: 'a' })];
    r.advance(1);
    // The newest of the three, and the first to end: it goes before the older live ones.
    const short = await r.store.startFamily({ userId: 'alice', clientId: 'a', scopes: [], resources: [], ttlMs: 1000 });
    r.advance(1000); // the short family has ended: the 4th takes its place, revoking nothing
    const f3 = await authorized(r, { clientId: 'a' });
    t.deepEqual(r.told, []);
    r.advance(1);
    const f4 = await authorized(r, { clientId: 'a' });
    t.deepEqual(r.told, [{ ids: [f1.family.id], reason: 'evicted' }], 'the oldest live one');
    t.true(await r.store.isRevoked(f1.family.id));
    for (const x of [f2, f3, f4]) t.false(await r.store.isRevoked(x.family.id));
    t.true(await r.store.isRevoked(short.id), 'the short family ended (no token of it is live)');
    // A revocation of the client still reaches every family it holds.
    t.deepEqual((await r.store.revokeGrant('alice', 'a')).sort(), [f2, f3, f4].map((x) => x.family.id).sort());
  });

  test(`${label}: a user's clients are capped: past it the least recently granted one is revoked and its consent forgotten`, async (t) => {
    const r = await rig(t, open, { maxClientsPerUser: 2 });
    const a = await authorized(r, { clientId: 'a' });
    await r.store.rememberConsent('alice', 'a', ['read'], []);
    r.advance(1);
    await authorized(r, { clientId: 'b' });
    r.advance(1);
    await authorized(r, { clientId: 'a' }); // `a` granted again: now `b` is the least recent
    r.advance(1);
    await r.store.rememberConsent('alice', 'c', ['read'], []);
    t.deepEqual(
      r.told.map((x) => x.reason),
      ['evicted'],
    );
    t.deepEqual(
      (await r.store.listGrants('alice')).map((g) => g.clientId),
      ['a'],
      '`b` was revoked; `c` has a consent and no family',
    );
    t.false(await r.store.isRevoked(a.family.id));
    t.true(await r.store.hasConsent('alice', 'c', ['read'], []));
    r.advance(1);
    await authorized(r, { clientId: 'd' }); // pushes out `a` (touched before `c`): its families and its consent
    t.false(await r.store.hasConsent('alice', 'a', ['read'], []));
    t.true(await r.store.isRevoked(a.family.id));
    t.true(await r.store.hasConsent('alice', 'c', ['read'], []));
  });

  test(`${label}: consent covers what was allowed together, for consentTTLMs`, async (t) => {
    const r = await rig(t, open, { consentTTLMs: 10 * DAY });
    t.false(await r.store.hasConsent('alice', 'a', [], []), 'nothing remembered yet');
    await r.store.rememberConsent('alice', 'a', ['openid', 'read'], [API]);
    t.true(await r.store.hasConsent('alice', 'a', ['openid', 'read'], [API]));
    t.true(await r.store.hasConsent('alice', 'a', ['read'], []), 'a subset');
    t.false(await r.store.hasConsent('alice', 'a', ['read', 'write'], [API]), 'a scope more');
    t.false(await r.store.hasConsent('alice', 'a', ['read'], [OTHER_API]), 'another resource');
    t.false(await r.store.hasConsent('alice', 'b', ['read'], []), 'another client');
    t.false(await r.store.hasConsent('bob', 'a', ['read'], []), 'another user');

    r.advance(DAY);
    await r.store.rememberConsent('alice', 'a', ['write'], [OTHER_API]);
    t.true(await r.store.hasConsent('alice', 'a', ['write'], [OTHER_API]));
    t.true(await r.store.hasConsent('alice', 'a', ['read'], [API]), 'the first consent is kept beside it');
    t.false(
      await r.store.hasConsent('alice', 'a', ['write'], [API]),
      'never a scope of one with a resource of another',
    );
    await r.store.rememberConsent('alice', 'a', ['openid', 'read', 'write'], [API, OTHER_API]);
    t.true(await r.store.hasConsent('alice', 'a', ['write'], [API]), 'allowed together now');

    r.advance(10 * DAY - 1);
    t.true(await r.store.hasConsent('alice', 'a', ['read'], [API]), 'the latest consent, a moment before its end');
    r.advance(1);
    t.false(await r.store.hasConsent('alice', 'a', ['read'], [API]), 'at its end');

    // Each consent ends consentTTLMs after it was given, however recent the client's others.
    await r.store.rememberConsent('alice', 'b', ['read'], []);
    r.advance(5 * DAY);
    await r.store.rememberConsent('alice', 'b', ['write'], []);
    r.advance(5 * DAY);
    t.false(await r.store.hasConsent('alice', 'b', ['read'], []), 'the first ended');
    t.true(await r.store.hasConsent('alice', 'b', ['write'], []), 'the second lives on');
  });

  test(`${label}: ten families of one user started at once are all indexed`, async (t) => {
    const r = await rig(t, open);
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => authorized(r, { clientId: `c${i % 3}` })));
    t.deepEqual((await r.store.listGrants('alice')).map((g) => g.clientId).sort(), ['c0', 'c1', 'c2']);
    t.deepEqual(
      (await r.store.revokeUser('alice')).sort(),
      all.map((x) => x.family.id).sort(),
      'none lost to the race',
    );
  });

  test(`${label}: a family that ended leaves the list, and its index entry expires with it`, async (t) => {
    const r = await rig(t, open);
    await authorized(r);
    r.advance(REFRESH_TTL);
    t.deepEqual(await r.store.listGrants('alice'), []);
    r.advance(REFRESH_TTL);
    const index = await r.state.get('as-user', sha256('alice'));
    t.true(
      index === undefined || index.expiresAt <= r.now(),
      'no index entry outlives its families by more than a lifetime',
    );
  });
}
