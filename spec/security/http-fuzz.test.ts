/**
 * Property-based fuzzing of the HTTP edge: malformed paths, headers, query strings and bodies sent to
 * every auth, avatar, passkey and user route (and the route middleware), on one app with a direct, a
 * verified, a passkey, a dev OAuth2 and a local-server provider, basic auth and an avatar store, behind
 * `app.proxy` so X-Forwarded-* are read. Whatever arrives: no 5xx, and every 4xx is a JSON error body.
 * Requests go out through node:http with the path exactly as generated (fetch() would resolve `..` and
 * re-encode). The seed is fixed, so a run is the same every time; a failure prints the request.
 */
import http from 'node:http';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { Client, startApp, type TestApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'http-fuzz-secret-0123456789abcdef-0123';
const SEED = Number(process.env.AUTHKOA_FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.AUTHKOA_FUZZ_RUNS ?? 2000);

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface RawAnswer {
  status: number;
  type: string;
  text: string;
}

/** One request, sent as is; bounded, so a request authkoa never answers fails instead of hanging. */
function send(port: number, r: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body) headers['content-length'] = r.body.length;
    const req = http.request(
      { host: '127.0.0.1', port, method: r.method, path: r.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(r.body);
  });
}

// ---- what gets sent ------------------------------------------------------------------------------

const HEX40 = 'a'.repeat(40);
const LONG = 'x'.repeat(600);

/**
 * Bits of paths that parsers trip on: dot segments, encoded separators and NUL, broken escapes, long
 * segments. Raw bytes above 0x7e are left out: Node's own HTTP parser refuses them before any app runs.
 */
const pathPiece = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2E.',
    '%2f',
    '%5c',
    '\\',
    '%00',
    '%zz',
    '%',
    '%c0%ae',
    '%ff',
    ';',
    ';a=b',
    '~',
    '%e9',
    '*',
    '@',
    ':',
    ',',
    '$',
  ),
  fc.constantFrom(
    'login',
    'callback',
    'logout',
    'register',
    'options',
    'list',
    'webhook',
    'user',
    'status',
    'passkey',
    'direct',
    'email',
    'dev',
    'server',
  ),
  fc.constantFrom(`${HEX40}.image`, `${HEX40}.png`, HEX40, LONG, `${LONG}.image`, 'A'.repeat(2000)),
  fc.stringMatching(/^[\x21-\x7e]{0,12}$/).map((s) => s.replace(/[?#]/g, '')),
);

/** The routes, each with the methods it answers (and a few it does not). */
const ROUTES: Array<[string, string[]]> = [
  ['/auth/list', ['GET', 'POST', 'HEAD']],
  ['/auth/user', ['GET', 'POST', 'HEAD']],
  ['/auth/status', ['GET', 'HEAD']],
  ['/auth/logout', ['GET', 'POST', 'PUT', 'DELETE']],
  ...['direct', 'email', 'passkey', 'dev', 'server'].flatMap((p): Array<[string, string[]]> => [
    [`/auth/${p}/login`, ['GET', 'POST', 'DELETE', 'PUT', 'OPTIONS']],
    [`/auth/${p}/callback`, ['GET', 'POST']],
    [`/auth/${p}/logout`, ['GET', 'POST']],
  ]),
  ['/auth/passkey/register/options', ['POST', 'GET', 'DELETE']],
  ['/auth/passkey/register', ['POST', 'GET']],
  ['/auth/passkey/login/options', ['POST', 'GET']],
  ['/auth/passkey/list', ['GET', 'POST']],
  [`/auth/passkey/${LONG}`, ['DELETE']],
  ['/auth/passkey/AAAA', ['DELETE', 'GET']],
  ['/auth/nope/login', ['GET', 'POST']],
  [`/avatar/${HEX40}.image`, ['GET', 'HEAD', 'POST']],
  ['/avatar/x.image', ['GET']],
];
/** The app's own routes behind authkoa's middleware: only their methods and paths are authkoa's to answer. */
const APP_ROUTES: Array<[string, string[]]> = [
  ['/private', ['GET', 'POST']],
  ['/admin', ['GET']],
  ['/open', ['GET']],
  ['/editors', ['GET']],
];

/** A route path, either as listed or mangled: pieces inserted or appended, or a prefix with junk. */
const pathArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ROUTES.map(([p]) => p)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('/auth', '/avatar', '/auth/passkey', '/auth/dev', '/auth/email/login'),
        fc.array(pathPiece, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('/', '//', '/./'),
      )
      .map(([prefix, pieces, sep]) => prefix + '/' + pieces.join(sep)),
  },
);

/** Tokens that look like JWTs: segments of real HS256 headers, JSON of any shape, text that is not JSON, stray characters. */
const b64 = (v: string) => Buffer.from(v).toString('base64url');
const segment = fc.oneof(
  fc.constant(b64('{"alg":"HS256","typ":"JWT"}')),
  fc.constantFrom(
    b64('{"alg":"none"}'),
    b64('{"alg":"HS256","crit":["x"]}'),
    b64('a'),
    b64('[]'),
    b64('null'),
    '',
    '=',
    'YQ=',
    'Y',
    '~~',
  ),
  fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v))),
  fc.string({ maxLength: 30 }).map(b64),
  fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/),
);
const tokenish = fc.oneof(
  fc.tuple(segment, segment, segment).map((s) => s.join('.')),
  fc.array(segment, { maxLength: 5 }).map((s) => s.join('.')),
);

/** Values a login or callback reads: long, empty, repeated, broken escapes, tokens that are not. */
const queryValue = fc.oneof(
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  tokenish,
  fc.constantFrom(
    '',
    '%',
    '%zz',
    '%00',
    '%E0%A4%A',
    'a%0d%0aSet-Cookie:%20x=1',
    LONG,
    'x'.repeat(5000),
    'http://u:p@127.0.0.1/x',
    '//evil.example',
    'javascript:alert(1)',
    'eyJhbGciOiJub25lIn0.e30.',
    'a.b.c',
    '1',
    '0',
    'true',
    '[]',
    '{}',
  ),
);
const queryKey = fc.constantFrom(
  'user',
  'passwd',
  'token',
  'from',
  'site',
  'aud',
  'session',
  'sess',
  'code',
  'state',
  'error',
  'address',
  'details',
  'id',
  'picture',
  '__proto__',
  'constructor',
  'user[]',
  '',
  '%zz',
);
const queryArb = fc.option(
  fc
    .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
    .map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  { nil: '' },
);

/** Header text as node:http lets it leave: printable Latin-1, no line breaks. */
const headerText = (max: number) =>
  fc.string({ maxLength: max, unit: 'binary' }).map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'));

const headerValues: Record<string, fc.Arbitrary<string>> = {
  'x-forwarded-for': fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '1.2.3.4',
        '::1',
        '::ffff:10.0.0.1',
        '2001:db8::1',
        'fe80::1%eth0',
        '[::1]:80',
        'unknown',
        '300.1.1.1',
        ',,,,',
        '',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        LONG,
        '1'.repeat(1000),
        `${'2001:db8::1, '.repeat(50)}::1`,
        `${'1.2.3.4, '.repeat(60)}5.6.7.8`,
        `${'f'.repeat(300)}::1`,
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-fA-F:.,% x[\]]{60,700}$/) },
    { weight: 1, arbitrary: headerText(120) },
  ),
  'x-forwarded-host': fc.oneof(fc.constantFrom('evil.example', '', 'a:b:c', LONG), headerText(60)),
  'x-forwarded-proto': fc.constantFrom('https', 'http', 'gopher', '', 'https, http'),
  host: fc.constantFrom('127.0.0.1', 'evil.example', '[::1]', 'a:b:c', '', LONG),
  authorization: fc.oneof(
    fc.constantFrom(
      'Basic',
      'Basic ',
      'Basic =',
      'Basic ####',
      `Basic ${Buffer.from('admin:admin-pw').toString('base64')}`,
      `Basic ${Buffer.from(`${LONG}:x`).toString('base64')}`,
      'Bearer x',
      `Basic ${'A'.repeat(3000)}`,
    ),
    fc.string({ maxLength: 60 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    headerText(80),
  ),
  cookie: fc.oneof(
    tokenish.map((v) => `JWT=${v}`),
    fc.constantFrom(
      'JWT=',
      'JWT=a.b.c',
      'JWT=%E0%A4%A',
      'JWT=eyJhbGciOiJub25lIn0.e30.',
      `JWT=${LONG}`,
      'JWT=1; JWT=2',
      'XSRF-TOKEN=%',
      '=; ;;',
      'authkoa-handshake=x.y.z',
    ),
    headerText(120),
  ),
  'x-jwt': fc.oneof(tokenish, fc.constantFrom('a.b.c', '..', 'eyJhbGciOiJub25lIn0.e30.', LONG), headerText(120)),
  'x-xsrf-token': headerText(60),
  origin: fc.oneof(fc.constantFrom('null', 'http://evil.example', '', '://', 'http://127.0.0.1'), headerText(60)),
  referer: fc.oneof(fc.constantFrom('http://evil.example/x', '://', 'not a url', '/relative'), headerText(60)),
  'sec-fetch-site': fc.constantFrom('cross-site', 'same-origin', 'none', 'same-site', '', '???'),
  'content-type': fc.constantFrom(
    'application/json',
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/merge-patch+json',
    ';;;',
    '',
    'application/json; boundary',
    'APPLICATION/JSON',
  ),
  'if-none-match': fc.oneof(fc.constantFrom('*', 'W/"x"', '"', ',,,'), headerText(60)),
  accept: fc.constantFrom('text/html', 'application/json', '*/*', ''),
};

/** Bodies: JSON of any shape, WebAuthn-looking objects with broken fields, forms, text and bytes. */
const webauthnish = fc.record(
  {
    id: fc.oneof(fc.constantFrom('', LONG, 'AAAA', '../x', '%00'), fc.string({ maxLength: 30 })),
    rawId: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(LONG)),
    type: fc.constantFrom('public-key', 'x', ''),
    response: fc.oneof(
      fc.record(
        {
          clientDataJSON: fc.string({ maxLength: 200 }),
          authenticatorData: fc.string({ maxLength: 60 }),
          signature: fc.string({ maxLength: 60 }),
          userHandle: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(LONG)),
          attestationObject: fc.string({ maxLength: 60 }),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { requiredKeys: [] },
);
/** What a login form sends, with values that go past what the checks expect (long, empty, odd characters). */
const field = fc.oneof(
  fc.constantFrom('alice', 'pw', '', LONG, 'x'.repeat(70), 'a\r\nb', 'a\u0000b', '+15551234567', 'a@b.example'),
  fc.string({ maxLength: 30 }),
);
const loginish = fc.record(
  { user: field, passwd: field, address: field, aud: field, site: field, from: field, session: field },
  { requiredKeys: [] },
);
const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const form = (d: Record<string, string>) => new URLSearchParams(d).toString();
/** A body and the content type that goes with it (a header picked at random may replace that type). */
const bodyArb = fc.option(
  fc.oneof(
    loginish.map((v) => ({ bytes: Buffer.from(JSON.stringify(v)), type: JSON_TYPE })),
    loginish.map((v) => ({ bytes: Buffer.from(form(v)), type: FORM_TYPE })),
    webauthnish.map((v) => ({ bytes: Buffer.from(JSON.stringify(v)), type: JSON_TYPE })),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ bytes: Buffer.from(JSON.stringify(v)), type: JSON_TYPE })),
    fc
      .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
      .map((pairs) => ({ bytes: Buffer.from(pairs.map(([k, v]) => `${k}=${v}`).join('&')), type: FORM_TYPE })),
    fc
      .tuple(fc.string({ maxLength: 200 }), fc.constantFrom(JSON_TYPE, FORM_TYPE, 'text/plain', undefined))
      .map(([v, type]) => ({ bytes: Buffer.from(v), type })),
    fc.uint8Array({ maxLength: 200 }).map((b) => ({ bytes: Buffer.from(b), type: undefined })),
    fc
      .constantFrom('{', '{"user":', 'null', '[]', '"x"', 'a'.repeat(70 * 1024))
      .map((v) => ({ bytes: Buffer.from(v), type: JSON_TYPE })),
  ),
  { nil: undefined },
);

// ---- the run ---------------------------------------------------------------------------------------

async function fuzzApp(t: ExecutionContext): Promise<{ app: TestApp; session: { cookie: string; xsrf: string } }> {
  const dir = tempDir(t, 'authkoa-http-fuzz-');
  const app = await startApp({
    secret: SECRET,
    avatarStore: join(dir, 'avatars'),
    adminPasswd: 'admin-pw',
    providers: [
      { kind: 'direct', name: 'direct', checker: (u: string, p: string) => u === 'alice' && p === 'pw' },
      { kind: 'verified', name: 'email', template: 'code {{.Token}}', sender: () => {} },
      { kind: 'passkey', rpName: 'fuzz' },
      { kind: 'dev', port: 0 },
      { kind: 'server', url: 'http://127.0.0.1:0', checker: (u: string, p: string) => u === 'alice' && p === 'pw' },
    ],
  });
  t.teardown(() => app.close());
  app.app.proxy = true; // X-Forwarded-For/-Host/-Proto are read: their garbage is part of the edge
  const c = new Client(app.url);
  const login = await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'pw' } });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  return {
    app,
    session: { cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '), xsrf: c.jar.get('XSRF-TOKEN')! },
  };
}

/** What is wrong with an answer, or undefined: a 5xx, or a 4xx that is not a JSON `{error, code}`. */
function problem(r: RawRequest, a: RawAnswer): string | undefined {
  if (a.status >= 500) return `answered ${a.status}`;
  if (a.status < 400) return undefined;
  // The one HTML refusal: a dead verified link opened in a browser (it asks for HTML) gets a page saying so.
  const deadLinkPage =
    /^text\/html/.test(a.type) && /html/.test(r.headers.accept ?? '') && r.path.startsWith('/auth/email/login?');
  if (!/^application\/json/.test(a.type) && !deadLinkPage) return `${a.status} with content-type "${a.type}"`;
  if (deadLinkPage) return undefined;
  if (r.method === 'HEAD') return undefined;
  try {
    const body = JSON.parse(a.text) as { error?: unknown; code?: unknown };
    return typeof body.error === 'string' && typeof body.code === 'string'
      ? undefined
      : `${a.status} JSON without error and code`;
  } catch {
    return `${a.status} body is not JSON`;
  }
}

test('every auth, avatar, passkey and user route: malformed paths, headers, queries and bodies never give a 5xx, and every 4xx is JSON', async (t) => {
  const { app, session } = await fuzzApp(t);
  const headerKeys = Object.keys(headerValues);
  const requestArb = fc
    .record({
      route: fc.constantFrom(...ROUTES, ...APP_ROUTES),
      path: fc.option(pathArb, { nil: undefined, freq: 3 }),
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'),
      ownMethod: fc.constantFrom(true, true, false), // mostly a method the route answers
      query: queryArb,
      picked: fc
        .subarray(headerKeys, { maxLength: 5 })
        .chain((keys) => fc.tuple(...keys.map((k) => headerValues[k]!.map((v) => [k, v] as const)))),
      // Under app.proxy every client address comes from here: it is on half the requests.
      xff: fc.option(headerValues['x-forwarded-for']!, { nil: undefined, freq: 2 }),
      withSession: fc.boolean(),
      body: bodyArb,
    })
    .chain((g) =>
      g.ownMethod || APP_ROUTES.includes(g.route)
        ? fc.constantFrom(...g.route[1]).map((m) => ({ ...g, method: m }))
        : fc.constant(g),
    )
    .map((g): RawRequest => {
      const headers: Record<string, string> = {};
      if (g.body?.type) headers['content-type'] = g.body.type;
      if (g.xff !== undefined) headers['x-forwarded-for'] = g.xff;
      if (g.withSession) Object.assign(headers, { cookie: session.cookie, 'x-xsrf-token': session.xsrf });
      for (const [k, v] of g.picked) headers[k] = k === 'cookie' && g.withSession ? `${session.cookie}; ${v}` : v;
      if (headers.host === undefined) headers.host = `127.0.0.1:${app.port}`;
      const path = g.path === undefined || APP_ROUTES.includes(g.route) ? g.route[0] : g.path;
      return { method: g.method, path: path + g.query, headers, body: g.body?.bytes };
    })
    // Node answers a request line and headers over 16 KiB itself (431), before any app runs.
    .filter((r) => r.path.length + JSON.stringify(r.headers).length < 12_000);

  // Cases found or reported by hand, always run first.
  const examples: RawRequest[] = [
    {
      method: 'DELETE',
      path: `/auth/passkey/${LONG}`,
      headers: { cookie: session.cookie, 'x-xsrf-token': session.xsrf },
    },
    {
      method: 'POST',
      path: '/auth/passkey/login',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ id: LONG, rawId: LONG, type: 'public-key', response: {} })),
    },
    {
      method: 'POST',
      path: '/auth/direct/login',
      headers: { 'x-forwarded-for': LONG, 'content-type': 'application/json' },
      body: Buffer.from('{"user":"u","passwd":"p"}'),
    },
    { method: 'GET', path: '/auth/../../etc/passwd', headers: {} },
    { method: 'GET', path: '/avatar/%00.image', headers: {} },
    { method: 'GET', path: '/auth/%zz/login', headers: {} },
  ];

  const started = Date.now();
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(requestArb, async (r) => {
      sent++;
      const why = problem(r, await send(app.port, r));
      if (why)
        throw new Error(
          `${r.method} ${r.path.slice(0, 300)} ${JSON.stringify(r.headers).slice(0, 600)} body ${r.body?.length ?? 0} bytes: ${why}`,
        );
    }),
    { seed: SEED, numRuns: RUNS, examples: examples.map((e) => [e]), endOnFailure: true, includeErrorInReport: true },
  );
  t.log(`${sent} requests in ${Date.now() - started} ms`);
  t.true(sent >= RUNS);
});
