/**
 * `authkoa/client`'s `tokens` calls in Node against a running app over real HTTP (spec/personal-tokens/rig.ts: a
 * `password` provider mailing through a real SMTP server): a token made, used as a bearer by a plain API client,
 * listed, revoked; refusals as AuthClientErrors with the server's code. Every answer is checked against the app's
 * OpenAPI document when it closes.
 */
import test from 'ava';
import { AuthClientError, createAuthClient } from '../../browser/client.js';
import { linkIn, PASSWORD, tokenOf } from '../accounts/rig.js';
import { bearer, tokensRig } from '../personal-tokens/rig.js';

test('create → a bearer API call as the owner → list → revoke → refused; the client throws the typed refusals', async (t) => {
  const r = await tokensRig(t, { tokens: { scopes: ['repo:read', 'repo:write'] } });
  const auth = createAuthClient({ baseURL: r.app.url });
  await auth.accounts.signup({ email: 'ann@example.com', password: PASSWORD, name: 'Ann' });
  const confirmed = await auth.accounts.confirm(tokenOf(linkIn(await r.smtp.next())));
  t.is(confirmed.state, 'logged_in');

  const made = await auth.tokens.create({ name: 'deploy', scopes: ['repo:read'], expiresIn: '30d' });
  t.regex(made.token, /^akp_/);
  t.is(made.expires, new Date(r.clock() + 30 * 86_400_000).toISOString());
  const api = await bearer(r.app.url, '/api/read', made.token);
  t.is(api.status, 200);
  t.like(await api.json(), { user: { name: 'Ann' }, auth: { method: 'token', id: made.id } });

  const listed = await auth.tokens.list();
  t.deepEqual(
    listed.map((x) => [x.id, x.name, x.scopes, 'token' in x]),
    [[made.id, 'deploy', ['repo:read'], false]],
  );
  const unknown = await t.throwsAsync(auth.tokens.create({ name: 'x', scopes: ['admin'] }));
  t.true(unknown instanceof AuthClientError);
  t.like(unknown, { code: 'invalid_scope', status: 400 });

  await auth.tokens.revoke(made.id);
  t.is((await bearer(r.app.url, '/api/read', made.token)).status, 401);
  t.like(await t.throwsAsync(auth.tokens.revoke(made.id)), { code: 'not_found', status: 404 });
  t.deepEqual(await auth.tokens.list(), []);

  r.clock.advance(6 * 60_000);
  t.like(await t.throwsAsync(auth.tokens.create({ name: 'late' })), { code: 'reauth_required', status: 401 });
  await t.throwsAsync(auth.tokens.revoke(''), { instanceOf: TypeError, message: /tokens\.revoke\(id\)/ });
});
