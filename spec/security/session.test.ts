/** XSRF and cookie-flag attacks (OWASP ASVS V3), over real HTTP. */
import test from 'ava';
import { Client, manualClock, startApp } from '../helpers/http.js';

const providers = [{ kind: 'direct' as const, name: 'direct', checker: () => true }];
const secret = 'security-suite-secret-0123456789';

async function session(url: string, user = 'victim') {
  const c = new Client(url);
  await c.fetch(`/auth/direct/login?user=${user}&passwd=x`);
  return c;
}

test('XSRF: a cookie-only request (what a cross-site form sends) is refused', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const victim = await session(app.url);
  const res = await victim.fetch('/private', { method: 'POST' });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'xsrf_mismatch');
});

test('XSRF: a wrong header value is refused', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const victim = await session(app.url);
  t.is((await victim.fetch('/private', { headers: { 'X-XSRF-TOKEN': '0'.repeat(40) } })).status, 401);
  t.is(
    (await victim.fetch('/private', { headers: { 'X-XSRF-TOKEN': victim.jar.get('XSRF-TOKEN')!.slice(0, 39) } }))
      .status,
    401,
  );
});

test('XSRF: a header value taken from another session is refused', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const victim = await session(app.url, 'victim');
  const attacker = await session(app.url, 'attacker');
  t.is((await victim.fetch('/private', { headers: attacker.xsrf() })).status, 401);
  t.is((await victim.fetch('/private', { headers: victim.xsrf() })).status, 201, 'control');
});

test('cookie flags: JWT HttpOnly, both SameSite=Lax and Path=/, no Secure on http', async (t) => {
  const app = await startApp({ secret, providers });
  t.teardown(() => app.close());
  const c = await session(app.url);
  const jwt = c.cookie('JWT')!;
  const xsrf = c.cookie('XSRF-TOKEN')!;
  t.true(jwt.attrs.httponly);
  t.is(jwt.attrs.samesite, 'Lax');
  t.is(xsrf.attrs.samesite, 'Lax');
  t.is(jwt.attrs.path, '/');
  t.is(jwt.attrs.secure, undefined);
});

test('cookie flags: Secure whenever url is https, even if secureCookies is false', async (t) => {
  const app = await startApp({ secret, providers, url: 'https://app.example', secureCookies: false });
  t.teardown(() => app.close());
  const c = await session(app.url);
  t.true(c.cookie('JWT')!.attrs.secure);
  t.true(c.cookie('XSRF-TOKEN')!.attrs.secure);
  // Clearing cookies keeps the flags, or browsers would refuse to overwrite the Secure ones.
  await c.fetch('/auth/logout');
  t.true(c.cookie('JWT')!.attrs.secure);
});

test("logout ends the session, not only this client's cookies: the token sent again afterwards is refused", async (t) => {
  const clock = manualClock();
  const app = await startApp({ secret, providers, clock, strictRevocation: true });
  t.teardown(() => app.close());
  const c = await session(app.url);
  const cookie = `JWT=${c.jar.get('JWT')}`;
  const xsrf = c.xsrf();
  t.is(
    (await fetch(`${app.url}/private`, { headers: { cookie, ...xsrf } })).status,
    201,
    'the cookie works before logout',
  );
  const out = await c.fetch('/auth/logout');
  t.is(out.status, 200);
  // The same cookie and XSRF header, sent by hand: a jar that dropped them proves nothing.
  const after = await fetch(`${app.url}/private`, { headers: { cookie, ...xsrf } });
  t.is(after.status, 401);
  t.is(((await after.json()) as { code: string }).code, 'session_revoked');
  clock.advance(20 * 60_000);
  t.is((await fetch(`${app.url}/private`, { headers: { cookie, ...xsrf } })).status, 401, 'nor refreshed later');
});
