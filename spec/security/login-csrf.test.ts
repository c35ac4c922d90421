/** Login CSRF: a direct login started by another site is refused before the credentials are checked. */
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';

test('a direct login from another site (Origin, Sec-Fetch-Site or Referer) is 403 origin_mismatch, without a session; same-site and header-less clients log in', async (t) => {
  let checks = 0;
  const app = await startApp({
    secret: 'login-csrf-test-secret-0123456789abcdef',
    providers: [{ kind: 'direct', name: 'local', checker: (_u: string, p: string) => (checks++, p === 'right') }],
  });
  t.teardown(() => app.close());
  const form = { user: 'mallory', passwd: 'right' };
  const foreign: Array<[string, Record<string, string>, string?]> = [
    ['foreign Origin on a form POST', { origin: 'https://evil.example' }],
    ['Origin null (sandboxed frame)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site on a GET link', { 'sec-fetch-site': 'cross-site' }, 'GET'],
    ['foreign Referer without Origin', { referer: 'https://evil.example/page' }, 'GET'],
  ];
  for (const [what, headers, method] of foreign) {
    const c = new Client(app.url);
    const res =
      method === 'GET'
        ? await c.fetch('/auth/local/login?user=mallory&passwd=right', { headers })
        : await c.fetch('/auth/local/login', { method: 'POST', form, headers });
    t.is(res.status, 403, what);
    t.deepEqual(await res.json(), { error: 'login must come from this site', code: 'origin_mismatch' }, what);
    t.deepEqual(res.headers.getSetCookie(), [], `${what}: no cookies`);
  }
  t.is(checks, 0, 'the checker never ran for them');

  const allowed: Array<[string, Record<string, string>]> = [
    ['same Origin', { origin: new URL(app.url).origin }],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['typed into the address bar', { 'sec-fetch-site': 'none' }],
    ['same-origin Referer', { referer: `${app.url}/login.html` }],
    ['no browser headers (curl, a server)', {}],
  ];
  for (const [what, headers] of allowed) {
    const res = await new Client(app.url).fetch('/auth/local/login', { method: 'POST', form, headers });
    t.is(res.status, 200, what);
  }
});
