/**
 * Personal access tokens over real HTTP: made by a fresh full login, used as `Authorization: Bearer` on the
 * application's routes (`auth`, `scope`, `admin`, `rbac`, `trace`), listed and revoked; expiry on the injected
 * clock. The app is the accounts rig (a `password` provider, real SMTP on 127.0.0.1).
 */
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { codeOf, post, SECRET } from '../accounts/rig.js';
import { bearer, createToken, loggedIn, newToken, tokensRig } from './rig.js';

test('a token made by a fresh login authenticates API calls as its owner; the secret is shown once', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const session = (await (await r.client.fetch('/api/me', { headers: r.client.xsrf() })).json()) as {
    user: { id: string; name: string };
  };
  const res = await createToken(r.client, { name: ' CI deploy ', scopes: ['repo:read'] });
  t.is(res.status, 201);
  t.is(res.headers.get('cache-control'), 'no-store');
  const made = (await res.json()) as Record<string, unknown>;
  t.regex(made.token as string, /^akp_[0-9A-Za-z]{36}$/);
  t.regex(made.id as string, /^pat_/);
  t.like(made, { name: 'CI deploy', scopes: ['repo:read'], expires: null, lastUsed: null });

  const api = await bearer(r.app.url, '/api/me', made.token as string);
  t.is(api.status, 200);
  const body = (await api.json()) as { user: Record<string, unknown>; auth: Record<string, unknown> };
  t.deepEqual(body.user, session.user, 'the owner, as the session had them');
  t.deepEqual(body.auth, { method: 'token', id: made.id, scopes: ['repo:read'] });

  const listed = (await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json()) as Array<
    Record<string, unknown>
  >;
  t.is(listed.length, 1);
  t.false('token' in listed[0]!, 'the list never shows the secret');
  t.is(listed[0]!.id, made.id);
  t.is(listed[0]!.lastUsed, new Date(r.clock()).toISOString(), 'its use is recorded');

  // /auth/user reads the user as `auth` does: a token is one more way in.
  const user = await bearer(r.app.url, '/auth/user', made.token as string);
  t.is(((await user.json()) as { id: string }).id, session.user.id);
});

test('a session request says so in ctx.state.auth; without a token the bearer header is refused 401', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const res = await r.client.fetch('/api/me', { headers: r.client.xsrf() });
  t.deepEqual(((await res.json()) as { auth: unknown }).auth, { method: 'session' });
  for (const token of ['akp_nope', `akp_${'a'.repeat(36)}`]) {
    const refused = await bearer(r.app.url, '/api/me', token);
    t.is(refused.status, 401, token);
    t.is(await codeOf(refused), 'token_invalid');
  }
  const traced = await bearer(r.app.url, '/api/traced', `akp_${'a'.repeat(36)}`);
  t.deepEqual(await traced.json(), { user: null, auth: null }, 'trace goes on without a user');
});

test('revoked: refused at once in the process that revoked it, 204 then 404', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client);
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200, 'cached as live');
  const del = await post(r.client, `/auth/tokens/${made.id}`, undefined, 'DELETE');
  t.is(del.status, 204);
  const refused = await bearer(r.app.url, '/api/me', made.token);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'token_invalid');
  t.is((await post(r.client, `/auth/tokens/${made.id}`, undefined, 'DELETE')).status, 404);
});

test("another user's token id is answered like an unknown one, and stays live", async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client);
  const bob = new Client(r.app.url);
  await loggedIn(r, 'bob@example.com', bob);
  const del = await post(bob, `/auth/tokens/${made.id}`, undefined, 'DELETE');
  t.is(del.status, 404);
  t.is(await codeOf(del), 'not_found');
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200);
  t.deepEqual(await (await bob.fetch('/auth/tokens', { headers: bob.xsrf() })).json(), []);
});

test('scope(): a token needs every scope named; a session passes; empty scopes reach only routes asking none', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const reader = await newToken(r.client, { name: 'r', scopes: ['repo:read'] });
  const none = await newToken(r.client, { name: 'n' });
  const writer = await newToken(r.client, { name: 'w', scopes: ['repo:write', 'repo:read'] });
  t.is((await bearer(r.app.url, '/api/read', reader.token)).status, 200);
  const denied = await bearer(r.app.url, '/api/write', reader.token);
  t.is(denied.status, 403);
  t.is(await codeOf(denied), 'insufficient_scope');
  t.is((await bearer(r.app.url, '/api/write', writer.token)).status, 200);
  t.is((await bearer(r.app.url, '/api/read', none.token)).status, 403);
  t.is((await bearer(r.app.url, '/api/me', none.token)).status, 200);
  t.is((await r.client.fetch('/api/write', { headers: r.client.xsrf() })).status, 200, 'the session');
});

test('expiresIn: live until the injected clock reaches it, then refused and gone from the list', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client, { name: 'short', expiresIn: 3600 });
  t.is(made.expires, new Date(r.clock() + 3_600_000).toISOString());
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200);
  r.clock.advance(3_600_000 - 1);
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200);
  r.clock.advance(1);
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 401, 'the cached entry ends with the token');
  await loggedIn(r, 'ann2@example.com');
  t.deepEqual(await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json(), []);
});

test('maxLifetime bounds expiresIn and is the life of a token that asks none', async (t) => {
  const r = await tokensRig(t, { tokens: { maxLifetime: '30d', scopes: ['repo:read'] } });
  await loggedIn(r);
  const made = await newToken(r.client, { name: 'default life' });
  t.is(made.expires, new Date(r.clock() + 30 * 86_400_000).toISOString());
  const tooLong = await createToken(r.client, { name: 'x', expiresIn: '31d' });
  t.is(tooLong.status, 400);
  t.is(await codeOf(tooLong), 'bad_request');
  const unknownScope = await createToken(r.client, { name: 'x', scopes: ['admin'] });
  t.is(unknownScope.status, 400);
  t.is(await codeOf(unknownScope), 'invalid_scope');
});

test('a bad body is a 400 naming the field, and nothing is made', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const cases: Array<[unknown, RegExp]> = [
    [{}, /name/],
    [{ name: '' }, /name/],
    [{ name: 'x'.repeat(101) }, /name/],
    [{ name: 'x', scopes: 'repo' }, /scopes/],
    [{ name: 'x', expiresIn: -5 }, /expiresIn/],
    [{ name: 'x', expiresIn: 'soon' }, /expiresIn/],
    [{ name: 'x', admin: true }, /admin/],
    [['x'], /object/],
  ];
  for (const [body, message] of cases) {
    const res = await createToken(r.client, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(((await res.json()) as { error: string }).error, message);
  }
  const scope = await createToken(r.client, { name: 'x', scopes: ['has space'] });
  t.is(await codeOf(scope), 'invalid_scope');
  t.deepEqual(await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json(), []);
});

test('making one needs a fresh login: a stale session gets 401 reauth_required', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  r.clock.advance(5 * 60_000 + 1000);
  const stale = await createToken(r.client, { name: 'x' });
  t.is(stale.status, 401);
  t.is(await codeOf(stale), 'reauth_required');
  t.is(
    (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).status,
    200,
    'listing needs no fresh login',
  );
});

test('maxPerUser: one more is 409 too_many_tokens; a revoked one makes room', async (t) => {
  const r = await tokensRig(t, { tokens: { maxPerUser: 2 } });
  await loggedIn(r);
  const first = await newToken(r.client, { name: 'a' });
  await newToken(r.client, { name: 'b' });
  const third = await createToken(r.client, { name: 'c' });
  t.is(third.status, 409);
  t.is(await codeOf(third), 'too_many_tokens');
  await post(r.client, `/auth/tokens/${first.id}`, undefined, 'DELETE');
  t.is((await createToken(r.client, { name: 'c' })).status, 201);
});

test('maxPerUser holds under racing creations: of 6 parallel POSTs with room for 2, two are made', async (t) => {
  const r = await tokensRig(t, { tokens: { maxPerUser: 2 } });
  await loggedIn(r);
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => createToken(r.client, { name: `t${i}` })));
  t.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 409, 409, 409, 409]);
  const listed = (await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json()) as unknown[];
  t.is(listed.length, 2);
});

test('the cookie route needs its XSRF header and the page origin; a POST from another site is refused', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const noXsrf = await r.client.fetch('/auth/tokens', {
    method: 'POST',
    json: { name: 'x' },
    headers: { origin: new URL(r.app.url).origin },
  });
  t.is(noXsrf.status, 401);
  t.is(await codeOf(noXsrf), 'xsrf_mismatch');
  const foreign = await r.client.fetch('/auth/tokens', {
    method: 'POST',
    json: { name: 'x' },
    headers: { origin: 'https://evil.example', ...r.client.xsrf() },
  });
  t.is(foreign.status, 403);
  t.is(await codeOf(foreign), 'origin_mismatch');
  t.deepEqual(await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json(), []);
});

test('admin and rbac take a token as its owner: their attrs and role decide', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client);
  t.is((await bearer(r.app.url, '/api/admin', made.token)).status, 403);
  t.is((await bearer(r.app.url, '/api/editors', made.token)).status, 403);
});

test('fresh() answers a token 401 reauth_required, even beside a fresh cookie', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client);
  const alone = await bearer(r.app.url, '/api/fresh', made.token);
  t.is(alone.status, 401);
  t.is(await codeOf(alone), 'reauth_required');
  const beside = await r.client.fetch('/api/fresh', {
    headers: { ...r.client.xsrf(), authorization: `Bearer ${made.token}` },
  });
  t.is(beside.status, 401);
  t.is((await r.client.fetch('/api/fresh', { headers: r.client.xsrf() })).status, 200, 'the cookie alone passes');
});

test("an account's deletion revokes its tokens at once, telling token_revoked; an operator's revoke too", async (t) => {
  const r = await tokensRig(t);
  const events: unknown[] = [];
  r.app.auth.on('token_revoked', (e) => void events.push(e));
  await loggedIn(r);
  const me = (await (await r.client.fetch('/api/me', { headers: r.client.xsrf() })).json()) as { user: { id: string } };
  const a = await newToken(r.client, { name: 'a' });
  const b = await newToken(r.client, { name: 'b' });
  t.is((await bearer(r.app.url, '/api/me', a.token)).status, 200, 'cached as live');

  t.true(await r.app.auth.tokens.revoke(me.user.id, b.id));
  t.false(await r.app.auth.tokens.revoke(me.user.id, b.id));
  t.is((await bearer(r.app.url, '/api/me', b.token)).status, 401);
  t.deepEqual(
    (await r.app.auth.tokens.list(me.user.id)).map((x) => x.id),
    [a.id],
  );

  t.is((await post(r.client, '/auth/local/account', undefined, 'DELETE')).status, 200);
  t.is((await bearer(r.app.url, '/api/me', a.token)).status, 401, 'refused at once, though it was cached');
  t.deepEqual(await r.app.auth.tokens.list(me.user.id), []);
  await new Promise((resolve) => setImmediate(resolve)); // listeners run after the answer
  t.like(events, [
    { type: 'token_revoked', userId: me.user.id, tokenId: b.id, by: 'admin' },
    { type: 'token_revoked', userId: me.user.id, tokenId: a.id, by: 'account_deleted' },
  ]);
  t.false(JSON.stringify(events).includes(a.token), 'no event carries the secret');
});

test('auth.tokens.list/revoke without the tokens option reject with a TypeError naming it', async (t) => {
  const { accountsRig } = await import('../accounts/rig.js');
  const r = await accountsRig(t);
  await t.throwsAsync(r.app.auth.tokens.list('u'), { instanceOf: TypeError, message: /`tokens` option/ });
  await t.throwsAsync(r.app.auth.tokens.revoke('u', 'pat_x'), { instanceOf: TypeError, message: /`tokens` option/ });
  // Without the feature a bearer token is no credential at all.
  const res = await r.client.fetch('/private', { headers: { authorization: `Bearer akp_${'a'.repeat(36)}` } });
  t.is(res.status, 401);
  t.is(await codeOf(res), 'no_token');
});

test('the validator judges a personal token too: a user the app blocks is blocked by their token (401 user_blocked)', async (t) => {
  const blocked = new Set<string>();
  const seen: unknown[] = [];
  const r = await tokensRig(t, {
    service: {
      validator: (token, claims) => {
        if (token.startsWith('akp_')) seen.push({ ...claims });
        return !blocked.has(claims.user?.id ?? '');
      },
    },
  });
  await loggedIn(r);
  const made = await newToken(r.client);
  const ok = await bearer(r.app.url, '/api/me', made.token);
  t.is(ok.status, 200);
  const owner = ((await ok.json()) as { user: { id: string } }).user.id;
  t.like(seen[0], { jti: made.id, user: { id: owner } });
  blocked.add(owner);
  const refused = await bearer(r.app.url, '/api/me', made.token);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'user_blocked');
});

test("a token of a provider no longer configured is refused, as that provider's sessions are: 401 provider_not_allowed", async (t) => {
  const state = `lmdb://${tempDir(t, 'authkoa-pat-')}/state`;
  const r = await tokensRig(t, { service: { stateStore: state } });
  await loggedIn(r);
  const made = await newToken(r.client);
  await r.app.close();
  // The same application started again without its password provider `local`.
  const later = await startApp({
    secret: SECRET,
    stateStore: state,
    accounts: { store: 'memory://' },
    tokens: true,
    providers: [{ kind: 'direct', name: 'other', checker: () => false }],
  });
  t.teardown(() => later.close());
  const res = await bearer(later.url, '/private', made.token);
  t.is(res.status, 401);
  t.is(await codeOf(res), 'provider_not_allowed');
});
