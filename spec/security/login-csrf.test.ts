/** Login CSRF: a login or credential change started by another site is refused before any provider code runs. */
import test from 'ava';
import { memoryStateStore } from '../../lib/state/index.js';
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
    t.is(((await res.json()) as { code: string }).code, 'origin_mismatch', what);
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

test('one rule for every provider: a POST or DELETE from another site to any login, confirmation, passkey or logout route is 403 origin_mismatch before the provider runs', async (t) => {
  const sent: string[] = [];
  let checks = 0;
  const app = await startApp({
    secret: 'login-csrf-test-secret-0123456789abcdef',
    stateStore: memoryStateStore(),
    providers: [
      { kind: 'direct', name: 'local', checker: () => (checks++, true) },
      {
        kind: 'verified',
        name: 'email',
        template: '{{.Token}}',
        sender: async (address: string) => void sent.push(address),
      },
      { kind: 'passkey', rpName: 'tests' },
    ],
  });
  t.teardown(() => app.close());
  const routes: Array<[string, string]> = [
    ['POST', '/auth/local/login'],
    ['POST', '/auth/email/login?user=u&address=victim@example.com'],
    ['POST', '/auth/email/login?token=x'],
    ['POST', '/auth/passkey/login'],
    ['POST', '/auth/passkey/login/options'],
    ['POST', '/auth/passkey/register'],
    ['POST', '/auth/passkey/register/options'],
    ['DELETE', '/auth/passkey/AAAA'],
    ['POST', '/auth/local/logout'],
  ];
  for (const headers of [
    { origin: 'https://evil.example' },
    { 'sec-fetch-site': 'cross-site' },
    { referer: 'https://evil.example/x' },
  ] as Array<Record<string, string>>) {
    for (const [method, path] of routes) {
      const res = await new Client(app.url).fetch(path, {
        method,
        headers: { ...headers, 'content-type': 'text/plain' },
        body: '{}',
      });
      const what = `${method} ${path} ${JSON.stringify(headers)}`;
      t.is(res.status, 403, what);
      t.is(((await res.json()) as { code: string }).code, 'origin_mismatch', what);
      t.deepEqual(res.headers.getSetCookie(), [], `${what}: no cookies`);
    }
  }
  t.is(checks, 0, 'no checker ran');
  t.deepEqual(sent, [], 'no confirmation was sent');
  const same = await new Client(app.url).fetch('/auth/email/login?user=u&address=me@example.com', {
    method: 'POST',
    headers: { origin: new URL(app.url).origin },
  });
  t.is(same.status, 200, 'the same requests from the site itself go through');
});
