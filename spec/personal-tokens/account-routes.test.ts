/**
 * A personal token never manages how its user logs in (issue #48, the rule of #45): every operation of the app's
 * own `auth.openapi()` but the public ones refuses a request presenting one, 403 `token_not_allowed`, alone or
 * beside the owner's fresh full-login cookie, by every method the document lists; and nothing changes. The app has
 * accounts (a `password` provider), the second factor, a passkey provider, sessions and the tokens themselves.
 */
import test from 'ava';
import { Client } from '../helpers/http.js';
import { codeOf, enrolTotp } from '../accounts/rig.js';
import { bearer, loggedIn, newToken, tokensRig } from './rig.js';

/** What serves anonymous callers on purpose: logins, sign-up and its links, logouts, the lists, the second-step page. */
const PUBLIC = new Set([
  'get /auth/list',
  'get /auth/user',
  'get /auth/status',
  'get /auth/logout',
  'post /auth/logout',
  'get /auth/mfa/page',
  'get /auth/mfa/client.js',
  'post /auth/local/login',
  'get /auth/local/logout',
  'post /auth/local/logout',
  'post /auth/local/signup',
  'get /auth/local/confirm',
  'post /auth/local/confirm',
  'post /auth/local/reset',
  'get /auth/local/reset/confirm',
  'post /auth/local/reset/confirm',
  'post /auth/passkey/login',
  'post /auth/passkey/login/options',
  'get /auth/passkey/logout',
  'post /auth/passkey/logout',
]);

const concrete = (path: string) =>
  path
    .replace('{id}', 'pat_AAAA')
    .replace('{sid}', 'a'.repeat(40))
    .replace('{credentialId}', 'AAAA')
    .replace('{provider}', 'dev');

test('every non-public operation of auth.openapi() refuses a personal token: 403 token_not_allowed, alone or beside a fresh session', async (t) => {
  const r = await tokensRig(t, {
    mfa: true,
    extraProviders: [{ kind: 'passkey', rpName: 'token tests' }],
    service: { logger: { info: () => {}, warn: () => {}, error: () => {} } },
  });
  await loggedIn(r);
  const otpauthUrl = await enrolTotp(r);
  const made = await newToken(r.client, { name: 'ci', scopes: ['repo:read'] });
  const doc = await r.app.auth.openapi();
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method} ${path}`),
  );
  const guarded = operations.filter((op) => !PUBLIC.has(op) && !op.includes('/avatar/'));
  t.true(guarded.length >= 20, `the management operations: ${guarded.join(', ')}`);
  for (const open of PUBLIC) t.true(operations.includes(open), `the public list names a real operation: ${open}`);
  t.true(guarded.includes('post /auth/tokens') && guarded.includes('delete /auth/tokens/{id}'));
  for (const op of guarded) {
    const [method, path] = op.split(' ') as [string, string];
    const url = r.app.url + concrete(path);
    const json = method === 'get' ? undefined : JSON.stringify({ name: 'x', password: 'p'.repeat(12) });
    const headers = { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' };
    const alone = await bearer(r.app.url, url, made.token, { method: method.toUpperCase(), headers, body: json });
    t.is(alone.status, 403, `alone: ${op}`);
    t.is(await codeOf(alone), 'token_not_allowed', `alone: ${op}`);
    const beside = await r.client.fetch(url, {
      method: method.toUpperCase(),
      headers: { ...r.client.xsrf(), origin: new URL(r.app.url).origin, ...headers },
      body: json,
    });
    t.is(beside.status, 403, `beside the session: ${op}`);
    t.is(await codeOf(beside), 'token_not_allowed', `beside the session: ${op}`);
  }
  // Nothing changed: one token, the second factor on, the session alive; the token still reaches the app's routes.
  const tokens = (await (await r.client.fetch('/auth/tokens', { headers: r.client.xsrf() })).json()) as unknown[];
  t.is(tokens.length, 1);
  const factors = await r.client.fetch('/auth/mfa', { headers: r.client.xsrf() });
  t.like(await factors.json(), { totp: true, recoveryCodesLeft: 10 });
  t.is((await bearer(r.app.url, '/api/read', made.token)).status, 200);
  t.truthy(otpauthUrl);
});

test('a public operation is not a way around it: a token cannot log out the session it came with', async (t) => {
  const r = await tokensRig(t);
  await loggedIn(r);
  const made = await newToken(r.client);
  // Logout clears the caller's own cookies: an API client without them has nothing to end.
  const out = await bearer(r.app.url, '/auth/logout', made.token, { method: 'POST' });
  t.is(out.status, 200);
  t.is((await r.client.fetch('/api/me', { headers: r.client.xsrf() })).status, 200, 'the session goes on');
  t.is((await bearer(r.app.url, '/api/me', made.token)).status, 200, 'and so does the token');
  t.is((await new Client(r.app.url).fetch('/auth/tokens')).status, 401, 'no session, no list');
});
