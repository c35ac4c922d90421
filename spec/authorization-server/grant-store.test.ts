/**
 * The authorization server's codes and refresh tokens (lib/authorization-server/grant-store.ts) on every state store:
 * memory, LMDB files, a real redis-server, a real PostgreSQL and the CongoDB stand-in. Times come from the test's
 * clock, never the wall; PKCE pairs from oauth4webapi.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { grantStore } from '../../lib/authorization-server/grant-store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import {
  authorized,
  CODE_TTL,
  readsFirst,
  codeGrant,
  DAY,
  everyBackend,
  NOW,
  pkce,
  REDIRECT,
  REFRESH_TTL,
  rig,
} from './rig.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
const invalid = (description: string) => ({ error: 'invalid_grant', description });
const UNKNOWN_CODE = invalid('code is unknown, expired or already used');
const UNKNOWN_REFRESH = invalid('refresh_token is unknown, expired or revoked');

for (const [label, open] of everyBackend(test)) {
  test(`${label}: a code is redeemed once; a replay is refused and revokes the family it started`, async (t) => {
    const r = await rig(t, open);
    const { verifier, challenge } = await pkce();
    const grant = codeGrant(challenge);
    const code = await r.store.issueCode(grant);
    t.regex(code, /^[A-Za-z0-9_-]{43,}$/, 'at least 256 bits, base64url');
    const check = { clientId: 'app', redirectURI: REDIRECT, verifier };
    const first = await r.store.redeemCode(code, check);
    if ('error' in first) return t.fail(first.description);
    t.deepEqual(first.grant, grant);
    t.like(first.family, { userId: 'alice', clientId: 'app', scopes: grant.scopes, resources: grant.resources });
    t.is(first.family.authTime, grant.authTime);
    t.is(first.family.createdAt, NOW);
    t.false(await r.store.isRevoked(first.family.id));
    const refreshToken = await r.store.issueRefresh(first.family);

    t.deepEqual(await r.store.redeemCode(code, check), UNKNOWN_CODE, 'the same code again');
    t.true(await r.store.isRevoked(first.family.id), 'the replay revoked the family');
    t.deepEqual(r.told, [{ ids: [first.family.id], reason: 'code_replay' }]);
    t.deepEqual(await r.store.refresh(refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH, 'and its refresh token');
    t.deepEqual(await r.store.redeemCode('not-a-code', check), UNKNOWN_CODE);
  });

  test(`${label}: only SHA-256s of codes and refresh tokens are kept, and no value holds either`, async (t) => {
    const r = await rig(t, open);
    const { code, family, refreshToken } = await authorized(r);
    t.is(await r.state.get('as-code', code), undefined);
    t.is(await r.state.get('as-refresh', refreshToken), undefined);
    const kept = [
      await r.state.get('as-code', sha256(code)),
      await r.state.get('as-refresh', sha256(refreshToken)),
      await r.state.get('as-family', family.id),
    ];
    t.true(
      kept.every((e) => e !== undefined),
      'each found under its hash (the family under its id)',
    );
    const text = JSON.stringify(kept);
    t.false(text.includes(code) || text.includes(refreshToken));
  });

  test(`${label}: a code is refused to another client, another redirect URI, and a verifier that does not match or is malformed; the first try spends it`, async (t) => {
    const r = await rig(t, open);
    const { verifier, challenge } = await pkce();
    const other = await pkce();
    // A verifier of 42 characters, 1 short of RFC 7636's form, whose hash is the challenge: refused by its form alone.
    const short = verifier.slice(0, 42);
    type Check = { clientId: string; redirectURI: string | undefined; verifier: string | undefined };
    const cases: Array<[Check, string, string?]> = [
      [{ clientId: 'other', redirectURI: REDIRECT, verifier }, 'code was issued to another client'],
      [
        { clientId: 'app', redirectURI: `${REDIRECT}x`, verifier },
        'redirect_uri differs from the authorization request',
      ],
      [{ clientId: 'app', redirectURI: undefined, verifier }, 'redirect_uri differs from the authorization request'],
      [{ clientId: 'app', redirectURI: REDIRECT, verifier: other.verifier }, 'code_verifier is missing'],
      [{ clientId: 'app', redirectURI: REDIRECT, verifier: undefined }, 'code_verifier is missing'],
      [{ clientId: 'app', redirectURI: REDIRECT, verifier: short }, 'code_verifier is missing', sha256(short)],
    ];
    for (const [check, why, ownChallenge] of cases) {
      const code = await r.store.issueCode(codeGrant(ownChallenge ?? challenge));
      const refused = await r.store.redeemCode(code, check);
      t.is('error' in refused && refused.error, 'invalid_grant', why);
      t.true('description' in refused && refused.description.startsWith(why), JSON.stringify(refused));
      const right = { clientId: 'app', redirectURI: REDIRECT, verifier: ownChallenge ? short : verifier };
      t.deepEqual(await r.store.redeemCode(code, right), UNKNOWN_CODE, `spent by the refused try (${why})`);
    }
    t.deepEqual(r.told, [], 'no family was started, so none revoked');
    const omitted = await r.store.issueCode(codeGrant(challenge, { redirectURIOmitted: true }));
    const ok = await r.store.redeemCode(omitted, { clientId: 'app', redirectURI: undefined, verifier });
    t.false('error' in ok, 'a request that named no redirect_uri may omit it at the token endpoint');
  });

  test(`${label}: a code lives codeTTLMs by the injected clock`, async (t) => {
    const r = await rig(t, open);
    const { verifier, challenge } = await pkce();
    const check = { clientId: 'app', redirectURI: REDIRECT, verifier };
    const [a, b] = [await r.store.issueCode(codeGrant(challenge)), await r.store.issueCode(codeGrant(challenge))];
    r.advance(CODE_TTL - 1);
    t.false('error' in (await r.store.redeemCode(a, check)), 'a moment before its end');
    r.advance(1);
    t.deepEqual(await r.store.redeemCode(b, check), UNKNOWN_CODE, 'at its end');
  });

  test(`${label}: of five redemptions of one code at once at most one gets a family, and that family is revoked`, async (t) => {
    const r = await rig(t, open);
    const { verifier, challenge } = await pkce();
    const code = await r.store.issueCode(codeGrant(challenge));
    const check = { clientId: 'app', redirectURI: REDIRECT, verifier };
    const all = await Promise.all(Array.from({ length: 5 }, () => r.store.redeemCode(code, check)));
    // The first to spend the code starts a family; the others find it spent and revoke that family, before or after
    // its redemption answered: a code used twice has leaked (RFC 6749 §4.1.2).
    const won = all.filter((x) => !('error' in x)) as Array<{ family: { id: string } }>;
    t.true(won.length <= 1, JSON.stringify(all));
    const revoked = [...new Set(r.told.flatMap((x) => x.ids))];
    t.is(revoked.length, 1, JSON.stringify(r.told));
    t.true(r.told.every((x) => x.reason === 'code_replay'));
    if (won[0]) t.is(won[0].family.id, revoked[0]);
    t.true(await r.store.isRevoked(revoked[0]!));
  });

  test(`${label}: a refresh rotates the token; the spent one presented again revokes the family`, async (t) => {
    const r = await rig(t, open);
    const { family, refreshToken } = await authorized(r);
    const one = await r.store.refresh(refreshToken, { clientId: 'app' });
    if ('error' in one) return t.fail(one.description);
    t.deepEqual(one.family, family, 'the same family, its whole grant');
    t.not(one.refreshToken, refreshToken);
    const two = await r.store.refresh(one.refreshToken, { clientId: 'app' });
    if ('error' in two) return t.fail(two.description);

    t.deepEqual(await r.store.refresh(refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH, 'the first, spent');
    t.true(await r.store.isRevoked(family.id));
    t.deepEqual(r.told, [{ ids: [family.id], reason: 'refresh_reuse' }]);
    t.deepEqual(await r.store.refresh(two.refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH, 'the newest too');
  });

  test(`${label}: a refresh may narrow scopes and resources, never widen them; the family keeps its grant`, async (t) => {
    const r = await rig(t, open);
    const { family, refreshToken } = await authorized(r);
    const wider = await r.store.refresh(refreshToken, { clientId: 'app', scopes: ['read', 'admin'] });
    t.deepEqual(wider, { error: 'invalid_scope', description: 'scope asks for more than was granted' });
    const elsewhere = await r.store.refresh(refreshToken, { clientId: 'app', resources: ['https://other.example/'] });
    t.deepEqual(elsewhere, { error: 'invalid_target', description: 'resource asks for more than was granted' });
    const stranger = await r.store.refresh(refreshToken, { clientId: 'other' });
    t.deepEqual(stranger, invalid('refresh_token was issued to another client'));
    t.deepEqual(r.told, [], 'none of these revokes');

    const narrow = await r.store.refresh(refreshToken, { clientId: 'app', scopes: ['read'], resources: [] });
    if ('error' in narrow) return t.fail(`the refusals did not spend the token: ${narrow.description}`);
    t.deepEqual(narrow.family, { ...family, scopes: ['read'], resources: [] });
    const next = await r.store.refresh(narrow.refreshToken, { clientId: 'app' });
    if ('error' in next) return t.fail(next.description);
    t.deepEqual(next.family.scopes, family.scopes, 'the next refresh has the whole grant again');
    t.deepEqual(next.family.resources, family.resources);
  });

  test(`${label}: of ten refreshes of one token at once exactly one wins; the others are refused without revoking`, async (t) => {
    const r = await rig(t, open);
    const { family, refreshToken } = await authorized(r);
    // All ten read the unspent token before any spends it: the race, not a reuse, whatever the backend's timing.
    const racing = grantStore(readsFirst(r.state, 'as-refresh', 10), {
      codeTTLMs: CODE_TTL,
      refreshTTLMs: REFRESH_TTL,
      clock: r.now,
      onRevoked: (ids, reason) => void r.told.push({ ids, reason }),
    });
    const all = await Promise.all(Array.from({ length: 10 }, () => racing.refresh(refreshToken, { clientId: 'app' })));
    const won = all.filter((x) => !('error' in x)) as Array<{ refreshToken: string }>;
    t.is(won.length, 1, JSON.stringify(all));
    for (const x of all) if ('error' in x) t.is(x.error, 'invalid_grant');
    t.false(await r.store.isRevoked(family.id), 'a race is not a reuse');
    t.deepEqual(r.told, []);
    t.false('error' in (await r.store.refresh(won[0]!.refreshToken, { clientId: 'app' })), "the winner's token works");
  });

  test(`${label}: a refresh token lives refreshTTLMs, and each refresh keeps the family live a lifetime more`, async (t) => {
    const r = await rig(t, open);
    const { family, refreshToken } = await authorized(r);
    r.advance(20 * DAY);
    const one = await r.store.refresh(refreshToken, { clientId: 'app' });
    if ('error' in one) return t.fail(one.description);
    r.advance(25 * DAY); // 45 days from the start: past the first token's lifetime, within the second's
    t.false(await r.store.isRevoked(family.id));
    const two = await r.store.refresh(one.refreshToken, { clientId: 'app' });
    if ('error' in two) return t.fail(two.description);
    r.advance(25 * DAY); // 70 days: the family lives until 75, longer than its user's index was first kept (60)
    t.deepEqual(
      (await r.store.listGrants('alice')).map((g) => g.clientId),
      ['app'],
      "the user's index is kept as long as the family",
    );
    r.advance(5 * DAY);
    t.deepEqual(await r.store.refresh(two.refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH, 'at its end');
    t.true(await r.store.isRevoked(family.id), 'an ended family counts as revoked: no token of it is live');
    t.deepEqual(r.told, []);
  });

  test(`${label}: revokeFamily, revokeRefresh and isRevoked`, async (t) => {
    const r = await rig(t, open);
    const a = await authorized(r);
    const b = await authorized(r);
    t.true(await r.store.isRevoked('no-such-family'), 'an unknown family has no live token');
    await r.store.revokeFamily(a.family.id);
    t.true(await r.store.isRevoked(a.family.id));
    t.deepEqual(await r.store.refresh(a.refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH);

    t.false(await r.store.revokeRefresh(b.refreshToken, 'other'), "another client's token is not found");
    t.false(await r.store.revokeRefresh('unknown', 'app'));
    t.false(await r.store.isRevoked(b.family.id));
    t.true(await r.store.revokeRefresh(b.refreshToken, 'app'));
    t.true(await r.store.isRevoked(b.family.id));
    t.deepEqual(await r.store.refresh(b.refreshToken, { clientId: 'app' }), UNKNOWN_REFRESH);
    t.deepEqual(r.told, [
      { ids: [a.family.id], reason: 'revoked' },
      { ids: [b.family.id], reason: 'revoked' },
    ]);
    t.deepEqual(await r.store.listGrants('alice'), [], 'revoked families leave the list');
  });

  test(`${label}: an OpenID grant's profile, claims request and app session go from its code to its family and refreshes`, async (t) => {
    const r = await rig(t, open);
    const profile = { name: 'Alice', email: 'alice@example.com', email_verified: true };
    const claims = { userinfo: ['phone_number'], id_token: [] };
    const { family, refreshToken } = await authorized(r, { profile, claims });
    t.like(family, { profile, claims, sessionId: 'session-1' });
    t.like(await r.store.family(family.id), { profile, claims, sessionId: 'session-1', authTime: NOW / 1000 });
    const refreshed = await r.store.refresh(refreshToken, { clientId: 'app', scopes: ['openid'] });
    if ('error' in refreshed) return t.fail(refreshed.description);
    t.like(refreshed.family, { profile, claims, sessionId: 'session-1', scopes: ['openid'] });
    await r.store.revokeFamily(family.id);
    t.is(await r.store.family(family.id), undefined, 'a revoked family is none');
    const plain = await authorized(r, { scopes: ['read'], sid: undefined });
    t.false('profile' in plain.family || 'claims' in plain.family || 'sessionId' in plain.family);
  });

  test(`${label}: a client_credentials family lives ttlMs, without a code`, async (t) => {
    const r = await rig(t, open);
    const f = await r.store.startFamily({
      userId: 'svc',
      clientId: 'svc',
      scopes: ['read', 'read'],
      resources: ['https://api.example/'],
      ttlMs: 15 * 60_000,
    });
    t.deepEqual(f, {
      id: f.id,
      userId: 'svc',
      clientId: 'svc',
      scopes: ['read'],
      resources: ['https://api.example/'],
      createdAt: NOW,
    });
    t.false(await r.store.isRevoked(f.id));
    t.is((await r.store.listGrants('svc')).length, 1);
    r.advance(15 * 60_000);
    t.true(await r.store.isRevoked(f.id));
    t.deepEqual(await r.store.listGrants('svc'), []);
  });
}

test('bad options and grants are TypeErrors naming what is wrong', async (t) => {
  const state = memoryStateStore();
  const base = { codeTTLMs: 60_000, refreshTTLMs: DAY, clock: Date.now };
  t.throws(() => grantStore({} as never, base), { instanceOf: TypeError, message: /state store/ });
  t.throws(() => grantStore(state, { ...base, codeTTLMs: 0 }), { instanceOf: TypeError, message: /codeTTLMs/ });
  t.throws(() => grantStore(state, { ...base, refreshTTLMs: '1d' as never }), { message: /refreshTTLMs/ });
  t.throws(() => grantStore(state, { ...base, clock: 5 as never }), { message: /clock/ });
  t.throws(() => grantStore(state, { ...base, maxFamiliesPerClient: 1.5 }), { message: /maxFamiliesPerClient/ });
  t.throws(() => grantStore(state, { ...base, onRevoked: 'x' as never }), { message: /onRevoked/ });
  const store = grantStore(state, base);
  const { challenge } = await pkce();
  await t.throwsAsync(store.issueCode(codeGrant('plain-verifier')), { instanceOf: TypeError, message: /challenge/ });
  await t.throwsAsync(store.issueCode(codeGrant(challenge, { scopes: 'read' as never })), { message: /scopes/ });
  await t.throwsAsync(store.issueCode(codeGrant(challenge, { clientId: '' })), { message: /clientId/ });
  await t.throwsAsync(store.startFamily({ userId: 'a', clientId: 'a', scopes: [], resources: [], ttlMs: -1 }), {
    message: /ttlMs/,
  });
});
