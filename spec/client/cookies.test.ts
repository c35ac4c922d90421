/**
 * The client's own cookie jar, which stands in for a browser's in Node, by RFC 6265's rules: a `Domain`
 * the request's host does not domain-match is ignored (an answer cannot plant the session), a matching
 * one makes a cookie for the domain and its subdomains, one without `Domain` stays with its host; paths,
 * `Max-Age` and `Expires` as a browser reads them. Over real HTTP on 127.0.0.1 and localhost; a name
 * under `app.test` is sent to 127.0.0.1 by the test's fetch, as a resolver would.
 */
import test from 'ava';
import type http from 'node:http';
import { createAuthClient } from '../../browser/client.js';
import { CookieJar } from '../../browser/client/cookies.js';
import { Transport } from '../../browser/client/transport.js';
import { serve, startApp } from '../helpers/http.js';

/**
 * A server that answers `/set?c=<line>&c=<line>` with those Set-Cookie lines, and every request with the
 * `Cookie` header it carried, as JSON.
 */
async function cookieServer(t: import('ava').ExecutionContext) {
  const served = await serve((req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/set') res.setHeader('set-cookie', url.searchParams.getAll('c'));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ cookie: req.headers.cookie ?? '' }));
  });
  t.teardown(() => served.close());
  return served;
}

const setPath = (...lines: string[]) => `/set?${lines.map((l) => `c=${encodeURIComponent(l)}`).join('&')}`;

test('a JWT with Domain=evil.example from the app does not replace the session; the real one keeps working', async (t) => {
  const app = await startApp(
    {
      secret: 'jar-domain-secret-0123456789abcdef',
      providers: [{ kind: 'direct', name: 'local', checker: (u, p) => u === 'ann' && p === 'pw' }],
    },
    (router) => {
      router.get('/plant', (ctx) => {
        ctx.append('Set-Cookie', 'JWT=forged; Domain=evil.example; Path=/; HttpOnly');
        ctx.append('Set-Cookie', 'XSRF-TOKEN=forged; Domain=evil.example; Path=/');
        ctx.body = {};
      });
    },
  );
  t.teardown(() => app.close());
  const auth = createAuthClient({ baseURL: app.url });
  const login = await auth.login('local', { user: 'ann', passwd: 'pw' });
  t.is(login.state, 'logged_in');
  t.is((await auth.fetch('/plant')).status, 200);
  t.is((await auth.user()).name, 'ann', 'the session cookie is still the one the login set');
  const res = await auth.fetch('/private', { method: 'POST' });
  t.is(res.status, 201, 'the XSRF token sent is still the real one');
});

for (const host of ['127.0.0.1', 'localhost'] as const) {
  test(`on ${host}: a Domain the host does not domain-match is ignored, its own name is kept host-only`, async (t) => {
    const server = await cookieServer(t);
    const auth = createAuthClient({ baseURL: `http://${host}:${server.port}` });
    const kept = ['A=1', `B=1; Domain=${host}`, `C=1; Domain=.${host.toUpperCase()}`, 'D=1; Domain=', 'K=1; Domain=.'];
    const ignored = ['E=1; Domain=evil.example', `F=1; Domain=${host.slice(1)}`, 'G=1; Domain=x.' + host];
    const ipOnly =
      host === '127.0.0.1'
        ? ['H=1; Domain=0.0.1', 'I=1; Domain=1', 'J=1; Domain=localhost']
        : ['H=1; Domain=calhost', 'I=1; Domain=127.0.0.1'];
    await auth.fetch(setPath(...kept, ...ignored, ...ipOnly));
    const { cookie } = (await (await auth.fetch('/echo')).json()) as { cookie: string };
    t.deepEqual(cookie.split('; ').sort(), ['A=1', 'B=1', 'C=1', 'D=1', 'K=1']);
    // A foreign Domain cannot clear a cookie either.
    await auth.fetch(
      setPath('A=; Domain=evil.example; Max-Age=0', `B=; Domain=x.${host}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`),
    );
    const after = (await (await auth.fetch('/echo')).json()) as { cookie: string };
    t.deepEqual(after.cookie.split('; ').sort(), ['A=1', 'B=1', 'C=1', 'D=1', 'K=1']);
  });
}

/** A Transport for `http://<name>:<port>` whose fetch connects to 127.0.0.1, as DNS would resolve the name. */
function transportFor(name: string, port: number, jar: CookieJar): Transport {
  const resolved: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    url.hostname = '127.0.0.1';
    return fetch(url, init);
  };
  return new Transport({
    baseURL: `http://${name}:${port}`,
    xsrfCookieName: 'XSRF-TOKEN',
    xsrfHeaderName: 'X-XSRF-TOKEN',
    timeout: 10_000,
    maxResponseBytes: 1 << 20,
    fetch: resolved,
    jar,
  });
}

test('a Domain the host is under makes a cookie for that domain and its subdomains; no Domain stays with its host; a single label or another site is refused', async (t) => {
  const server = await cookieServer(t);
  const jar = new CookieJar();
  const www = transportFor('www.app.test', server.port, jar);
  const api = transportFor('api.app.test', server.port, jar);
  const other = transportFor('other.test', server.port, jar);
  await www.request(
    'GET',
    setPath(
      'Host=1',
      'Parent=1; Domain=app.test',
      'Self=1; Domain=www.app.test',
      'Tld=1; Domain=test',
      'Sibling=1; Domain=api.app.test',
      'Far=1; Domain=other.test',
    ),
  );
  const sent = async (t: Transport) =>
    ((await t.request('GET', '/echo')).body as { cookie: string }).cookie.split('; ').filter(Boolean).sort();
  t.deepEqual(await sent(www), ['Host=1', 'Parent=1', 'Self=1']);
  t.deepEqual(await sent(api), ['Parent=1'], 'only the domain cookie of app.test reaches a sibling');
  t.deepEqual(
    jar.header(new URL('http://deep.www.app.test/')).split('; ').sort(),
    ['Parent=1', 'Self=1'],
    'a Domain equal to the host covers its subdomains',
  );
  t.deepEqual(await sent(other), []);
  // The same name set host-only and for the domain are two cookies; a sibling replaces the domain one.
  await api.request('GET', setPath('Parent=2; Domain=app.test', 'Host=api'));
  t.deepEqual(await sent(www), ['Host=1', 'Parent=2', 'Self=1']);
  t.deepEqual(await sent(api), ['Host=api', 'Parent=2']);
});

test('the cookie jar: sent back by path, replaced by name and path, cleared by Max-Age=0, a past Expires or an empty value', (t) => {
  let now = Date.UTC(2026, 0, 1);
  const jar = new CookieJar(() => now);
  const at = (path: string) => new URL(path, 'http://app.example');
  jar.store(
    ['JWT=a; Path=/; HttpOnly; SameSite=Lax', 'XSRF-TOKEN=x%2By; Path=/', 'JWT-MFA=m; Path=/auth/mfa; Max-Age=300'],
    at('/auth/local/login'),
  );
  t.is(jar.header(at('/auth/user')), 'JWT=a; XSRF-TOKEN=x%2By');
  t.is(jar.header(at('/auth/mfa/verify')), 'JWT-MFA=m; JWT=a; XSRF-TOKEN=x%2By', 'the longer path first');
  t.is(jar.header(at('/auth/mfasomething')), 'JWT=a; XSRF-TOKEN=x%2By', 'a path prefix counts only at a slash');
  t.is(jar.get('XSRF-TOKEN', at('/')), 'x%2By');
  t.is(jar.get('JWT-MFA', at('/')), undefined, 'not sent to /');
  jar.store(['JWT=b; Path=/'], at('/'));
  t.is(jar.get('JWT', at('/')), 'b');
  now += 301_000;
  t.is(jar.header(at('/auth/mfa/verify')), 'JWT=b; XSRF-TOKEN=x%2By', 'expired by Max-Age');
  jar.store(
    ['JWT=; Path=/; Max-Age=0', `XSRF-TOKEN=z; Path=/; Expires=${new Date(now - 1000).toUTCString()}`],
    at('/auth/logout'),
  );
  t.is(jar.header(at('/')), '');
  jar.store(['A=1', 'B=2; Path=/x'], at('/auth/list'));
  t.is(jar.header(at('/auth/user')), 'A=1', 'no Path: the directory of the request path');
  t.is(jar.header(at('/')), '');
  jar.store(['=nameless', 'novalue'], at('/'));
  t.is(jar.header(at('/x')), 'B=2');
  jar.store(['P=1; Domain=example; Path=/x', 'P=2; Domain=app.example; Path=/x; Max-Age=60'], at('/'));
  t.is(jar.header(at('/x')), 'B=2; P=2', 'a domain cookie keeps its path and Max-Age');
  now += 61_000;
  t.is(jar.header(at('/x')), 'B=2');
});
