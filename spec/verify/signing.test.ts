/**
 * The `signing` option in a running app (issue #35), over real HTTP with real keys: sessions signed with
 * the key (alg and kid in the header), read from every source and refreshed; verified by `jose` from the
 * JWKS route alone; rotation with previousKeys; the tokens that stay HS256; the option's errors.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { calculateJwkThumbprint, createRemoteJWKSet, jwtVerify, type JWK } from 'jose';
import { emailSender } from '../../lib/index.js';
import { ROOT } from '../helpers/cli.js';
import { Client, decodeJwt, started } from '../helpers/http.js';
import { startSmtp } from '../helpers/smtp.js';
import { tempDir } from '../helpers/temp.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { TEMPLATE, tokenIn } from '../verified/fixtures.js';
import {
  ALGS,
  SECRET,
  directProvider,
  jwtHeader,
  loginClient,
  loginToken,
  pemKey,
  signingWith,
  startSignedApp,
} from './fixtures.js';

const JWKS = '/auth/.well-known/jwks.json';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The `keys` of an app's JWKS. */
async function jwksKeys(url: string): Promise<JWK[]> {
  return ((await (await fetch(url + JWKS)).json()) as { keys: JWK[] }).keys;
}

for (const alg of ALGS) {
  test(`${alg}: the session names alg and kid (the JWKS key's, its RFC 7638 thumbprint by jose); cookie + XSRF, X-JWT and ?token= are accepted; a refresh keeps alg and kid`, async (t) => {
    const key = pemKey(alg);
    const app = await startSignedApp(t, signingWith(key));
    const c = await loginClient(app);
    const token = c.jar.get('JWT')!;
    const [published] = await jwksKeys(app.url);
    t.deepEqual(jwtHeader(token), { alg, kid: published!.kid, typ: 'JWT' });
    t.is(published!.kid, await calculateJwkThumbprint(key.publicJwk as JWK));

    const byCookie = await c.fetch('/auth/user', { headers: c.xsrf() });
    t.is(byCookie.status, 200);
    t.is(((await byCookie.json()) as { name: string }).name, 'alice');
    t.is((await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': token } })).status, 200);
    t.is((await fetch(`${app.url}/auth/user?token=${token}`)).status, 200);
    t.is((await c.fetch('/auth/user')).status, 401, 'the cookie without the XSRF header is refused');

    app.clock.advance(16 * 60_000);
    t.is((await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': token } })).status, 401, 'the token has expired');
    t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
    const refreshed = c.jar.get('JWT')!;
    t.not(refreshed, token);
    t.deepEqual(jwtHeader(refreshed), jwtHeader(token));
    t.true(decodeJwt(refreshed).exp > decodeJwt(token).exp);
    t.is((await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': refreshed } })).status, 200);
  });

  test(`${alg}: jose's createRemoteJWKSet on the JWKS URL and jwtVerify accept the session token, no authkoa code involved`, async (t) => {
    const app = await startSignedApp(t, signingWith(pemKey(alg)));
    const token = await loginToken(app);
    const jwks = createRemoteJWKSet(new URL(app.url + JWKS));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'authkoa', algorithms: [alg] });
    t.is(protectedHeader.alg, alg);
    t.deepEqual(payload, decodeJwt(token));
    t.like(payload.user, { name: 'alice' });
    await t.throwsAsync(jwtVerify(token, jwks, { issuer: 'someone-else' }), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
  });
}

test('the JWKS route: 200, the current key first then the previous ones, public for 5 minutes, no private member in any key', async (t) => {
  const [a, b, c] = [pemKey('EdDSA'), pemKey('RS256'), pemKey('ES256')];
  const app = await startSignedApp(t, signingWith(b, [a.privatePem, c.privateJwk]));
  const res = await fetch(app.url + JWKS);
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'public, max-age=300');
  t.is(res.headers.get('access-control-allow-origin'), '*');
  t.regex(res.headers.get('content-type')!, /^application\/json/);
  const { keys } = (await res.json()) as { keys: JWK[] };
  const kids = await Promise.all([b, a, c].map((k) => calculateJwkThumbprint(k.publicJwk as JWK)));
  t.deepEqual(
    keys.map((k) => [k.kid, k.alg, k.use]),
    [
      [kids[0], 'RS256', 'sig'],
      [kids[1], 'EdDSA', 'sig'],
      [kids[2], 'ES256', 'sig'],
    ],
  );
  for (const k of keys)
    t.deepEqual(
      PRIVATE_MEMBERS.filter((m) => m in k),
      [],
      `no private member in ${k.kty}`,
    );
});

test('the site-root route tokens.md shows, run as written, serves the same key set at /.well-known/jwks.json', async (t) => {
  const doc = readFileSync(join(ROOT, 'docs', 'tokens.md'), 'utf8');
  const line = doc.split('\n').find((l) => l.startsWith("router.get('/.well-known/jwks.json'"));
  t.truthy(line, 'the route is in tokens.md');
  // The documented line is plain JavaScript: it runs here on the app's own router and service.
  const app = await startSignedApp(t, signingWith(pemKey('ES256')), {}, (router, auth) =>
    new Function('router', 'auth', line!)(router, auth),
  );
  const [atRoot, underAuth] = await Promise.all([fetch(`${app.url}/.well-known/jwks.json`), fetch(app.url + JWKS)]);
  t.is(atRoot.status, 200);
  t.is(atRoot.headers.get('cache-control'), 'public, max-age=300');
  t.deepEqual(await atRoot.json(), await underAuth.json());
});

test('without signing the JWKS route answers 404 JSON not_found', async (t) => {
  const app = await startSignedApp(t, undefined);
  const res = await fetch(app.url + JWKS);
  t.is(res.status, 404);
  t.regex(res.headers.get('content-type')!, /^application\/json/);
  t.like(await res.json(), { code: 'not_found' });
});

test('rotation: key B with previousKeys [A] (public or private PEM) accepts and refreshes a token of A into one of B; B alone refuses it', async (t) => {
  const [a, b] = [pemKey('EdDSA'), pemKey('ES256')];
  const app1 = await startSignedApp(t, signingWith(a));
  const tokenA = await loginToken(app1);
  const [kidA, kidB] = await Promise.all([a, b].map((k) => calculateJwkThumbprint(k.publicJwk as JWK)));
  t.is(jwtHeader(tokenA).kid, kidA);

  for (const previous of [a.publicPem, a.privatePem]) {
    const app2 = await startSignedApp(t, signingWith(b, [previous]), { clock: app1.clock });
    t.deepEqual(
      (await jwksKeys(app2.url)).map((k) => k.kid),
      [kidB, kidA],
    );
    t.is((await fetch(`${app2.url}/auth/user`, { headers: { 'X-JWT': tokenA } })).status, 200);
    t.is(jwtHeader(await loginToken(app2, 'bob')).kid, kidB, 'new logins are signed with B');
  }

  const app3 = await startSignedApp(t, signingWith(b), { clock: app1.clock });
  const refused = await fetch(`${app3.url}/auth/user`, { headers: { 'X-JWT': tokenA } });
  t.is(refused.status, 401, 'B alone refuses a token of A');
  t.like(await refused.json(), { code: 'token_invalid' });

  const app2 = await startSignedApp(t, signingWith(b, [a.publicPem]), { clock: app1.clock });
  app1.clock.advance(16 * 60_000);
  const c = new Client(app2.url);
  c.jar.set('JWT', tokenA);
  c.jar.set('XSRF-TOKEN', decodeJwt(tokenA).jti);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  const refreshed = c.jar.get('JWT')!;
  t.deepEqual(jwtHeader(refreshed), { alg: 'ES256', kid: kidB, typ: 'JWT' });
  t.is(decodeJwt(refreshed).sid, decodeJwt(tokenA).sid, 'the same session goes on');
});

test('with signing on, an OAuth2 (dev) login works and its handshake cookie is HS256; the session is EdDSA', async (t) => {
  const quiet = { info() {}, warn() {}, error() {} };
  const app = await startSignedApp(t, signingWith(pemKey('EdDSA')), {
    providers: [{ kind: 'dev', port: 0 }],
    logger: quiet,
  });
  const c = new Client(app.url);
  const authorize = await startLogin(c, 'dev');
  const handshake = c.jar.get('JWT-handshake')!;
  t.deepEqual(jwtHeader(handshake), { alg: 'HS256', typ: 'JWT' });
  t.truthy(decodeJwt(handshake).handshake);
  const res = await c.fetch(await devAuthorize(authorize, 'alice'));
  t.is(res.status, 200);
  t.is(jwtHeader(c.jar.get('JWT')!).alg, 'EdDSA');
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});

test('with signing on, a verified (email link) login works and its confirmation token is HS256; the session is RS256', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const sender = emailSender({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    from: 'login@example.com',
    subject: 'Confirm',
    timeout: '30s',
  });
  const app = await startSignedApp(t, signingWith(pemKey('RS256')), {
    providers: [{ kind: 'verified', name: 'email', template: TEMPLATE, sender }],
  });
  const c = new Client(app.url);
  t.is((await c.fetch('/auth/email/login?user=alice&address=alice@example.com')).status, 200);
  const link = tokenIn((await smtp.next()).mail.text);
  t.deepEqual(jwtHeader(link), { alg: 'HS256', typ: 'JWT' });
  t.is((await c.fetch(`/auth/email/login?token=${link}`, { method: 'POST' })).status, 200);
  t.is(jwtHeader(c.jar.get('JWT')!).alg, 'RS256');
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});

test('option errors: each a TypeError naming the option', async (t) => {
  const dir = tempDir(t);
  const ed = pemKey('EdDSA');
  const pem = (k: ReturnType<typeof generateKeyPairSync>['privateKey']) =>
    k.export({ format: 'pem', type: 'pkcs8' }) as string;
  const base = { url: 'http://127.0.0.1:1', secret: SECRET, providers: [directProvider] };
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'a bad alg',
      { alg: 'HS256', key: ed.privatePem },
      /signing\.alg must be one of EdDSA, ES256, RS256 \(got "HS256"\)/,
    ],
    ['a key not matching alg', { alg: 'ES256', key: ed.privatePem }, /signing\.key is a key for EdDSA, not ES256/],
    ['a public key as key', { alg: 'EdDSA', key: ed.publicPem }, /signing\.key must be a private key/],
    [
      'a 1024-bit RSA key',
      { alg: 'RS256', key: pem(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey) },
      /signing\.key must be an Ed25519, P-256 or RSA \(2048 bits or more\) key/,
    ],
    [
      'a P-384 key',
      { alg: 'ES256', key: pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey) },
      /signing\.key must be an Ed25519, P-256 or RSA/,
    ],
    ['garbage', { alg: 'EdDSA', key: 'not a key' }, /signing\.key must be a PEM key, a JWK or file:<path>/],
    [
      'file: of a missing file',
      { alg: 'EdDSA', key: `file:${join(dir, 'missing.pem')}` },
      /signing\.key: cannot read .*missing\.pem/,
    ],
    ['an unknown signing.x', { alg: 'EdDSA', key: ed.privatePem, x: 1 }, /unknown option "signing\.x"/],
    [
      'a garbage previous key',
      { alg: 'EdDSA', key: ed.privatePem, previousKeys: ['nope'] },
      /signing\.previousKeys\[0\] must be a PEM key/,
    ],
  ];
  for (const [what, signing, message] of cases) {
    await t.throwsAsync(
      started({ ...base, signing } as Parameters<typeof started>[0]),
      { instanceOf: TypeError, message },
      what,
    );
  }
});

test('file: of a PEM and of a JWK JSON file both load: the session is signed with that key', async (t) => {
  const dir = tempDir(t);
  const [ed, ec] = [pemKey('EdDSA'), pemKey('ES256')];
  writeFileSync(join(dir, 'ed.pem'), ed.privatePem);
  writeFileSync(join(dir, 'ec.json'), JSON.stringify(ec.privateJwk));
  for (const [key, file] of [
    [ed, 'ed.pem'],
    [ec, 'ec.json'],
  ] as const) {
    const app = await startSignedApp(t, { alg: key.alg, key: `file:${join(dir, file)}` });
    const token = await loginToken(app);
    t.deepEqual(
      jwtHeader(token),
      { alg: key.alg, kid: await calculateJwkThumbprint(key.publicJwk as JWK), typ: 'JWT' },
      file,
    );
    t.is((await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': token } })).status, 200);
  }
});
