import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { Client, decodeJwt, manualClock, startApp, type TestApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { CLIENT_ID, KEY_ID, TEAM_ID, startAppleStandin, teamKey, type AppleStandin } from './standin.js';
import { internalsOf } from '../../lib/instance.js';

const SECRET = 'apple-test-secret-0123456789abcdef';
const key = teamKey();

interface Setup {
  app: TestApp;
  apple: AppleStandin;
  c: Client;
}

async function setup(
  t: ExecutionContext,
  entry: Record<string, unknown> = {},
  extra: Partial<AuthKoaOptions> = {},
): Promise<Setup> {
  const apple = await startAppleStandin(key.publicKey);
  t.teardown(() => apple.close());
  const dir = tempDir(t, 'authkoa-apple-');
  const app = await startApp({
    secret: SECRET,
    avatarStore: join(dir, 'avatars'),
    providers: [
      {
        kind: 'apple',
        clientId: CLIENT_ID,
        teamId: TEAM_ID,
        keyId: KEY_ID,
        privateKey: key.pem,
        endpoint: apple.endpoint(),
        ...entry,
      },
    ],
    ...extra,
  });
  t.teardown(() => app.close());
  return { app, apple, c: new Client(app.url) };
}

/** Starts the login, reads the stand-in's form and posts it back to the callback like the browser would. */
async function login(s: Setup, query = 'from=/private') {
  const start = await s.c.fetch(`/auth/apple/login${query ? `?${query}` : ''}`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}: ${await start.text()}`);
  const authorize = new URL(start.headers.get('location')!);
  const page = await (await fetch(authorize)).text();
  const action = /action="([^"]+)"/.exec(page)![1]!;
  const fields: Record<string, string> = {};
  for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
  const res = await s.c.fetch(new URL(action).pathname, { method: 'POST', form: fields });
  return { authorize, res };
}

test('first sign-up with name: apple_<sha1(sub)>, the name from the user field, an identicon, 303 to from', async (t) => {
  const s = await setup(t);
  s.apple.script.user = { name: { firstName: 'Jane', lastName: 'Appleseed' }, email: 'jane@example.test' };
  const { authorize, res } = await login(s);
  t.is(authorize.searchParams.get('response_mode'), 'form_post');
  t.is(authorize.searchParams.get('response_type'), 'code');
  t.is(authorize.searchParams.get('scope'), 'name');
  t.is(authorize.searchParams.get('client_id'), CLIENT_ID);
  t.truthy(authorize.searchParams.get('nonce'));
  t.is(authorize.searchParams.get('code_challenge'), null, 'no PKCE by default');
  t.is(res.status, 303);
  t.is(res.headers.get('location'), `${s.app.url}/private`);
  const user = decodeJwt(s.c.jar.get('JWT')!).user;
  t.is(user.id, `apple_${sha1(s.apple.script.sub)}`);
  t.is(user.name, 'Jane Appleseed');
  t.is(user.email, undefined, 'no email without the email scope');
  t.regex(user.picture, new RegExp(`^${s.app.url}/avatar/[0-9a-f]{40}\\.image$`));
  const png = await fetch(user.picture);
  t.is(png.status, 200);
  t.deepEqual([...Buffer.from(await png.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  t.is((await s.c.fetch('/private', { headers: s.c.xsrf() })).status, 201);
});

test('later login without the user field: same id, name noname_<6 hash chars>', async (t) => {
  const s = await setup(t);
  const { res } = await login(s);
  t.is(res.status, 303);
  const user = decodeJwt(s.c.jar.get('JWT')!).user;
  const hash = sha1(s.apple.script.sub);
  t.is(user.id, `apple_${hash}`);
  t.is(user.name, `noname_${hash.slice(0, 6)}`);
});

test('without a permitted from the POST callback still ends in a 303 to a GET (the landing page)', async (t) => {
  const s = await setup(t);
  const plain = await login(s, '');
  t.is(plain.res.status, 303);
  t.is(plain.res.headers.get('location'), `${s.app.url}/`);
  const foreign = await login(s, 'from=https://evil.example/x');
  t.is(foreign.res.headers.get('location'), `${s.app.url}/`);
  const custom = await setup(t, { landingURL: '/welcome' });
  const landed = await login(custom, '');
  t.is(landed.res.headers.get('location'), `${custom.app.url}/welcome`);
});

test('email scope: the id_token address becomes the email', async (t) => {
  const s = await setup(t, { scopes: ['name', 'email'] });
  const { authorize } = await login(s);
  t.is(authorize.searchParams.get('scope'), 'name email');
  t.is(decodeJwt(s.c.jar.get('JWT')!).user.email, 'jane@privaterelay.appleid.com');
});

for (const [what, change] of [
  ['bad signature', (a: AppleStandin) => void (a.script.forgeSignature = true)],
  ['wrong aud', (a: AppleStandin) => void (a.script.claims = { aud: 'com.example.other' })],
  ['wrong iss', (a: AppleStandin) => void (a.script.claims = { iss: 'https://appleid.example' })],
  [
    'expired id_token',
    (a: AppleStandin) =>
      void (a.script.claims = { exp: Math.floor(Date.now() / 1000) - 600, iat: Math.floor(Date.now() / 1000) - 1200 }),
  ],
  ['wrong nonce', (a: AppleStandin) => void (a.script.claims = { nonce: 'not-the-one-we-sent' })],
  ['missing nonce', (a: AppleStandin) => void (a.script.claims = { nonce: undefined })],
] as const) {
  test(`${what} → 403 invalid_id_token, no session`, async (t) => {
    const s = await setup(t);
    change(s.apple);
    const { res } = await login(s);
    t.is(res.status, 403);
    t.is(((await res.json()) as { code: string }).code, 'invalid_id_token');
    t.false(s.c.jar.has('JWT'));
  });
}

test('the client secret is an ES256 JWT (kid, iss team, sub client, aud Apple) that verifies with the public key; cached, renewed before expiry', async (t) => {
  const clock = manualClock(Date.now());
  const s = await setup(t, {}, { clock });
  await login(s);
  await login(s);
  t.is(s.apple.secrets.length, 2);
  const [first, second] = s.apple.secrets;
  t.true(first!.verified);
  t.deepEqual(first!.header, { alg: 'ES256', kid: KEY_ID });
  t.like(first!.payload, { iss: TEAM_ID, sub: CLIENT_ID, aud: 'https://appleid.apple.com' });
  t.is(first!.payload.exp! - first!.payload.iat!, 1800);
  t.is(second!.jwt, first!.jwt, 'cached');
  clock.advance(26 * 60_000);
  await login(s);
  const third = s.apple.secrets[2]!;
  t.not(third.jwt, first!.jwt, 'renewed with minutes to spare');
  t.true(third.verified);
});

test('JWKS is cached and refetched when Apple signs with an unknown kid', async (t) => {
  const clock = manualClock(Date.now());
  const s = await setup(t, {}, { clock });
  t.is((await login(s)).res.status, 303);
  t.is((await login(s)).res.status, 303);
  t.is(s.apple.keyFetches, 1);
  await s.apple.rotate();
  clock.advance(31_000);
  t.is((await login(s)).res.status, 303);
  t.is(s.apple.keyFetches, 2);
});

test('a replayed form_post callback (same code, state and handshake cookie) is refused without a second code exchange', async (t) => {
  const s = await setup(t);
  const start = await s.c.fetch('/auth/apple/login?from=/private');
  const cookie = `JWT-handshake=${s.c.jar.get('JWT-handshake')!}`;
  const page = await (await fetch(new URL(start.headers.get('location')!))).text();
  const fields: Record<string, string> = {};
  for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
  // The captured POST, sent twice with the original handshake cookie (the first answer clears it in a browser).
  const post = () =>
    fetch(`${s.app.url}/auth/apple/callback`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { cookie },
      redirect: 'manual',
    });
  const first = await post();
  t.is(first.status, 303, 'control: the first callback logs in');
  t.true(first.headers.getSetCookie().some((h) => h.startsWith('JWT=')));
  const again = await post();
  t.is(again.status, 403);
  t.deepEqual(await again.json(), {
    error: 'apple: handshake already used (callback replayed)',
    code: 'invalid_handshake',
  });
  t.false(
    again.headers.getSetCookie().some((h) => h.startsWith('JWT=') || h.startsWith('XSRF-TOKEN=')),
    'no session cookies',
  );
  t.is(s.apple.secrets.length, 1, 'one call at the token endpoint');
});

test('token endpoint refusal → 502 exchange_failed', async (t) => {
  const s = await setup(t);
  s.apple.script.tokenStatus = 400;
  const { res } = await login(s);
  t.is(res.status, 502);
  t.is(((await res.json()) as { code: string }).code, 'exchange_failed');
});

test('on https the handshake cookie is SameSite=None; Secure and scoped to the provider path; session cookies stay Lax', async (t) => {
  const s = await setup(t, {}, { url: 'https://127.0.0.1:1' });
  const res = await s.c.fetch('/auth/apple/login');
  t.is(res.status, 302);
  const hs = s.c.cookie('JWT-handshake')!;
  t.is(hs.attrs.samesite, 'None');
  t.is(hs.attrs.secure, true);
  t.is(hs.attrs.httponly, true);
  t.is(hs.attrs.path, '/auth/apple');
  t.is(
    new URL(res.headers.get('location')!).searchParams.get('redirect_uri'),
    'https://127.0.0.1:1/auth/apple/callback',
  );
  t.is(
    internalsOf(
      authKoa({
        secret: SECRET,
        url: 'https://127.0.0.1:1',
        providers: [{ kind: 'direct', name: 'd', checker: () => true }],
      }),
    ).options.sameSite,
    'Lax',
  );
});

test('on plain http a callback POST without the handshake cookie is relayed as a GET that carries it', async (t) => {
  const s = await setup(t);
  s.apple.script.user = { name: { firstName: 'Jane', lastName: 'Appleseed' } };
  const start = await s.c.fetch('/auth/apple/login?from=/private');
  const authorize = new URL(start.headers.get('location')!);
  const page = await (await fetch(authorize)).text();
  const fields: Record<string, string> = {};
  for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
  // What a browser does with a Lax cookie on a cross-site POST: leaves it out.
  const post = await fetch(`${s.app.url}/auth/apple/callback`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  t.is(post.status, 303);
  const relay = new URL(post.headers.get('location')!);
  t.is(relay.pathname, '/auth/apple/callback');
  t.is(relay.searchParams.get('state'), fields.state);
  const done = await s.c.fetch(relay.pathname + relay.search);
  t.is(done.status, 303);
  t.is(decodeJwt(s.c.jar.get('JWT')!).user.name, 'Jane Appleseed');
  // A relayed GET without the cookie has nowhere further to go.
  const again = await fetch(relay, { redirect: 'manual' });
  t.is(again.status, 403);
});

test('bad key or missing options at start-up: auth.ready rejects naming the option', async (t) => {
  const dir = tempDir(t, 'authkoa-apple-keys-');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  await writeFile(join(dir, 'rsa.p8'), rsa);
  await writeFile(join(dir, 'p384.p8'), p384);
  await writeFile(join(dir, 'junk.p8'), 'not a key');
  await writeFile(join(dir, 'good.p8'), key.pem);
  const make = (entry: Record<string, unknown>) => () =>
    authKoa({
      secret: SECRET,
      url: 'http://127.0.0.1:1',
      providers: [{ kind: 'apple', clientId: CLIENT_ID, teamId: TEAM_ID, keyId: KEY_ID, ...entry }],
    }).ready;
  await t.throwsAsync(make({ privateKeyPath: join(dir, 'missing.p8') }), {
    message: /^authKoa: providers\[0\] \(apple\): privateKeyPath: cannot read .*missing\.p8 \(ENOENT\)/,
  });
  await t.throwsAsync(make({ privateKeyPath: join(dir, 'rsa.p8') }), {
    message: /privateKeyPath: not an EC key \(got rsa\)/,
  });
  await t.throwsAsync(make({ privateKeyPath: join(dir, 'p384.p8') }), {
    message: /privateKeyPath: EC key on curve secp384r1, not P-256/,
  });
  await t.throwsAsync(make({ privateKeyPath: join(dir, 'junk.p8') }), {
    message: /privateKeyPath: not a PEM private key/,
  });
  await t.throwsAsync(make({ privateKey: rsa }), { message: /privateKey: not an EC key/ });
  await t.throwsAsync(make({ privateKey: () => Promise.resolve(key.pem) }), {
    message: /privateKey: the key loader must return the PEM synchronously/,
  });
  await t.throwsAsync(
    make({
      privateKey: () => {
        throw new Error('vault sealed');
      },
    }),
    { message: /privateKey: the key loader failed \(vault sealed\)/ },
  );
  await t.throwsAsync(make({}), { message: /privateKeyPath \(the \.p8 file\) or privateKey/ });
  await t.throwsAsync(make({ privateKeyPath: join(dir, 'good.p8'), privateKey: key.pem }), { message: /not both/ });
  await t.throwsAsync(make({ clientId: undefined, teamId: '', privateKey: key.pem }), {
    message: /clientId, teamId are required/,
  });
  await t.throwsAsync(make({ privateKey: key.pem, scopes: ['openid'] }), { message: /scopes may only hold/ });
  const ok = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    providers: [
      { name: 'apple', clientId: CLIENT_ID, teamId: TEAM_ID, keyId: KEY_ID, privateKeyPath: join(dir, 'good.p8') },
    ],
  });
  await ok.ready;
  t.deepEqual(
    ok.providers.list().map((p) => [p.name, p.kind]),
    [['apple', 'apple']],
    'by name, from a .p8 file',
  );
  await ok.close();
  const fn = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    providers: [
      {
        kind: 'apple',
        name: 'apple-eu',
        clientId: CLIENT_ID,
        teamId: TEAM_ID,
        keyId: KEY_ID,
        privateKey: () => key.pem,
      },
    ],
  });
  await fn.ready;
  t.is(fn.providers.list()[0]!.name, 'apple-eu');
  await fn.close();
});
