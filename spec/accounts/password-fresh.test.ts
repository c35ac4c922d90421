/**
 * The owner's routes (`POST password`, `POST email`, `DELETE account`) need a fresh full login: a login
 * older than `fresh` (5 minutes) is 401 `reauth_required` and nothing changes; basic auth and a token the
 * app minted are no full login at all (403 `full_login_required`), even for the very account's user.
 */
import test, { type ExecutionContext } from 'ava';
import { Client } from '../helpers/http.js';
import { accountsRig, codeOf, login, PASSWORD, post, signUpAndConfirm, whoami, type AccountsRig } from './rig.js';

const NEW = 'a different passphrase';

/** The three owner's routes, each as a request of `client` with `headers`. */
function ownerRoutes(client: Client, headers: Record<string, string>) {
  const send = (method: string, path: string, json?: unknown) =>
    client.fetch(path, { method, json, headers: { origin: new URL(client.base).origin, ...headers } });
  return {
    'POST password': () => send('POST', '/auth/local/password', { current: PASSWORD, password: NEW }),
    'POST email': () => send('POST', '/auth/local/email', { email: 'elsewhere@example.com' }),
    'DELETE account': () => send('DELETE', '/auth/local/account'),
  };
}

/** Nothing changed: the password is the old one, the address too, the account is there, no mail was sent. */
async function unchanged(t: ExecutionContext, r: AccountsRig, email: string, mailed: number) {
  t.is((await login(new Client(r.app.url), email, PASSWORD)).status, 200, 'the old password still logs in');
  t.is((await login(new Client(r.app.url), email, NEW)).status, 403, 'the new one does not');
  const account = await r.app.auth.accounts!.find(email);
  t.is(account?.email, email, 'the account and its address are there');
  t.is(r.smtp.received.length, mailed, 'no message was sent');
}

test('a login older than 5 minutes: each owner route is 401 reauth_required and changes nothing; a new login makes it fresh', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'owner@example.com');
  const mailed = r.smtp.received.length;
  r.clock.advance(5 * 60_000 + 1000);
  t.is((await whoami(r.client)).status, 201, 'the session itself is still good');
  for (const [route, send] of Object.entries(ownerRoutes(r.client, r.client.xsrf()))) {
    const res = await send();
    t.is(res.status, 401, route);
    t.is(await codeOf(res), 'reauth_required', route);
  }
  await unchanged(t, r, 'owner@example.com', mailed);
  t.is((await whoami(r.client)).status, 201, 'and the session goes on');
  // A new login of the same browser is fresh again: the refusal above was the age, not the request.
  t.is((await login(r.client, 'owner@example.com', PASSWORD)).status, 200);
  const changed = await ownerRoutes(r.client, r.client.xsrf())['POST password']();
  t.is(changed.status, 200, await changed.clone().text());
});

test("basic auth (as the account's own user, with its password) and a token the app minted are refused on the owner routes: 403 full_login_required", async (t) => {
  const users = new Map<string, string>();
  const r = await accountsRig(t, {
    service: {
      // Basic auth that knows the account: its user is the very user id the password login gives.
      basicAuthChecker: (user: string, passwd: string) => ({
        ok: users.has(user) && passwd === PASSWORD,
        user: { id: users.get(user) ?? '', name: user, picture: '' },
      }),
    },
  });
  const me = await signUpAndConfirm(r, 'owner@example.com', PASSWORD, new Client(r.app.url));
  users.set('owner@example.com', String(me.id));
  const mailed = r.smtp.received.length;
  const basic = { authorization: `Basic ${Buffer.from(`owner@example.com:${PASSWORD}`).toString('base64')}` };
  const minted = await r.app.auth.tokens.create({
    aud: '',
    jti: 'm'.repeat(40),
    user: { id: String(me.id), name: 'owner@example.com', picture: '' },
    auth_provider: { name: 'local' },
    auth_time: Math.floor(r.clock() / 1000),
  });
  for (const [how, headers] of [
    ['basic auth', basic],
    ['a minted token', { 'x-jwt': minted }],
  ] as const) {
    const c = new Client(r.app.url);
    t.is((await c.fetch('/private', { headers })).status, 201, `${how} is a user of the app's own routes`);
    for (const [route, send] of Object.entries(ownerRoutes(c, headers))) {
      const res = await send();
      t.is(res.status, 403, `${how}: ${route}`);
      t.is(await codeOf(res), 'full_login_required', `${how}: ${route}`);
    }
  }
  await unchanged(t, r, 'owner@example.com', mailed);
});

test('the owner routes without any login: 401, nothing changes', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'owner@example.com', PASSWORD, new Client(r.app.url));
  const mailed = r.smtp.received.length;
  for (const [route, send] of Object.entries(ownerRoutes(new Client(r.app.url), {}))) {
    const res = await send();
    t.is(res.status, 401, route);
  }
  await unchanged(t, r, 'owner@example.com', mailed);
  t.is(
    (await post(new Client(r.app.url), '/auth/local/login', { user: 'owner@example.com', passwd: PASSWORD })).status,
    200,
  );
});
