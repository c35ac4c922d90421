/** Open redirect through `from` (RFC 9700 §4.11), over real HTTP through the shared login path. */
import test from 'ava';
import { registerFromEchoKind } from '../helpers/attack.js';
import { Client, startApp, type TestApp } from '../helpers/http.js';

registerFromEchoKind();
let app: TestApp;

test.before(async () => {
  app = await startApp({ secret: 'security-suite-secret-0123456789', providers: [{ kind: 'from-echo', name: 'echo' }], allowedRedirects: ['partner.example', 'pinned.example:8443'] });
});
test.after.always(() => app.close());

async function loginFrom(from: string): Promise<Response> {
  return new Client(app.url).fetch(`/auth/echo/login?user=u&from=${encodeURIComponent(from)}`);
}

const refused = [
  'https://evil.example/',
  'http://evil.example',
  '//evil.example/path',
  '/\\evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'http://127.0.0.1:1@evil.example/',
  'http://evil.example%2F@127.0.0.1/',
  'https://partner.example.evil.example/',
  'https://pinned.example:9999/',
  '\t//evil.example',
  'ftp://partner.example/',
];

for (const from of refused) {
  test(`from=${JSON.stringify(from)} does not redirect: the user JSON is answered`, async (t) => {
    const res = await loginFrom(from);
    t.is(res.status, 200);
    t.is(res.headers.get('location'), null);
    t.is(((await res.json()) as { name: string }).name, 'u');
  });
}

// Targets that URL parsing resolves against the app's own URL: they stay on its origin, nothing else.
const sameOrigin: Array<[string, string, string]> = [
  ['http:evil.example', '/evil.example', 'a scheme without slashes is a relative path on the same scheme'],
  ['/%0d%0aSet-Cookie:x=1', '/%0d%0aSet-Cookie:x=1', 'the CR LF stays percent-encoded: no header is injected'],
];

for (const [from, path, why] of sameOrigin) {
  test(`from=${JSON.stringify(from)} redirects only within the app's origin, to ${path} (${why})`, async (t) => {
    const res = await loginFrom(from);
    t.is(res.status, 303);
    t.is(res.headers.get('location'), `${app.url}${path}`);
    t.deepEqual(
      res.headers.getSetCookie().map((c) => c.slice(0, c.indexOf('='))),
      ['JWT', 'XSRF-TOKEN'],
      'the session cookies and no injected one',
    );
  });
}

const allowed: Array<[string, (base: string) => string]> = [
  ['/dashboard?tab=1', (b) => `${b}/dashboard?tab=1`],
  ['relative/path', (b) => `${b}/relative/path`],
  ['SELF', (b) => `${b}/x`],
  ['https://partner.example/welcome', () => 'https://partner.example/welcome'],
  ['https://PARTNER.example:444/', () => 'https://partner.example:444/'],
  ['https://pinned.example:8443/ok', () => 'https://pinned.example:8443/ok'],
];

for (const [from, expected] of allowed) {
  test(`from=${JSON.stringify(from)} redirects with 303`, async (t) => {
    const res = await loginFrom(from === 'SELF' ? `${app.url}/x` : from);
    t.is(res.status, 303);
    t.is(res.headers.get('location'), expected(app.url));
  });
}
