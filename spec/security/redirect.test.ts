/** Open redirect through `from` (RFC 9700 §4.11), over real HTTP through the shared login path. */
import test from 'ava';
import { registerFromEchoKind } from '../helpers/attack.js';
import { Client, startApp, type TestApp } from '../helpers/http.js';
import { standinLogin } from '../oauth2/fixtures.js';
import { startStandin, type Standin } from '../oauth2/standin.js';

registerFromEchoKind();
let app: TestApp;
let standin: Standin;
/** What the verified provider `email` "sent": its confirmation tokens, in order. */
const mailed: string[] = [];

test.before(async () => {
  standin = await startStandin({ login: 'octo', id: 1, name: 'Octo' });
  app = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [
      { kind: 'from-echo', name: 'echo' },
      { name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() },
      {
        kind: 'verified',
        name: 'email',
        template: '{{.Token}}',
        sender: (_address: string, text: string) => void mailed.push(text),
        rateLimit: false,
      },
    ],
    allowedRedirects: ['partner.example', 'pinned.example:8443'],
  });
});
test.after.always(async () => {
  await app?.close();
  await standin?.close();
});

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

// Userinfo on a target that is otherwise allowed (the app's own origin, an allow-listed host): the
// address bar would show the trusted host, so `from` with a user name, a password or both is refused.
// Fixed cases over every login route that takes `from`, so removing that refusal fails here every run.
const withUserinfo = (base: string): string[] => {
  const { protocol, host } = new URL(base);
  return [
    `${protocol}//u:p@${host}/x`,
    `${protocol}//u@${host}/x`,
    `${protocol}//:p@${host}/x`,
    `${protocol}//u:@${host}/x`,
    `//u:p@${host}/x`,
    'https://u:p@partner.example/welcome',
    'https://u@PARTNER.example/welcome',
    'https://:p@pinned.example:8443/ok',
  ];
};

/** Each route that carries `from` to the shared login completion, driven to the end of its login. */
const routes: Array<[string, (from: string) => Promise<Response>]> = [
  ['from-echo (completeLogin)', (from) => loginFrom(from)],
  [
    'oauth2 login → callback',
    (from) => standinLogin(new Client(app.url), 'github', `from=${encodeURIComponent(from)}`),
  ],
  [
    'verified: step 1 → the POST confirmation',
    async (from) => {
      const c = new Client(app.url);
      const step1 = await c.fetch(`/auth/email/login?user=u&address=u@example.com&from=${encodeURIComponent(from)}`);
      if (step1.status !== 200) throw new Error(`step 1 answered ${step1.status}: ${await step1.text()}`);
      return c.fetch('/auth/email/login', { method: 'POST', form: { token: mailed.at(-1)! } });
    },
  ],
];

for (const [route, login] of routes) {
  test(`${route}: from with userinfo on an allowed host does not redirect`, async (t) => {
    const control = await login(`${app.url}/x`);
    t.is(control.status, 303, 'control: the same target without userinfo redirects');
    t.is(control.headers.get('location'), `${app.url}/x`);
    for (const from of withUserinfo(app.url)) {
      const res = await login(from);
      t.is(res.status, 200, from);
      t.is(res.headers.get('location'), null, from);
      t.is(((await res.json()) as { name: string }).name, route.startsWith('oauth2') ? 'Octo' : 'u', from);
    }
  });
}
