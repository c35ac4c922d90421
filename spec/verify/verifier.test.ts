/**
 * `authkoa/verify` in-process (issue #35), its key set always over real HTTP: an authkoa app's JWKS
 * route, or a key server here that counts its fetches and can rotate, break or hang. The middleware's
 * answers, the claim checks, algorithm and key confusion, `.verify()`, the cache of the set (first fetch,
 * single flight, the cooldown of an unknown kid, maxAge) and every kind of outage, the JWKs a set may not
 * pass off, and the options' errors. Tokens are minted by jose, not by authkoa, except the app's own.
 */
import { createHmac, sign as cryptoSign } from 'node:crypto';
import test from 'ava';
import { AuthError as MainAuthError } from '../../lib/index.js';
import { AuthError, verifier, VerifyError, type VerifierOptions } from '../../lib/verify/index.js';
import { Client, manualClock } from '../helpers/http.js';
import { pemKey, signingWith, startSignedApp } from './fixtures.js';
import { forge, keyOf, keyServer, mint, outcome, protectedService, type KeyServer } from './fixtures/jwks.js';
import { tamperedSignature } from '../helpers/tamper.js';

test("an authkoa app's session token, its keys from the app's JWKS URL: ctx.state.user (with aud) from Authorization: Bearer and from X-JWT", async (t) => {
  const app = await startSignedApp(t, signingWith(pemKey('EdDSA')));
  const c = new Client(app.url);
  t.is(
    (await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'password', aud: 'api' } }))
      .status,
    200,
  );
  const token = c.jar.get('JWT')!;
  const service = await protectedService(t, {
    jwks: `${app.url}/auth/.well-known/jwks.json`,
    audiences: ['api'],
    clock: app.clock,
  });
  for (const headers of [
    { Authorization: `Bearer ${token}` },
    { authorization: `bearer ${token}` },
    { 'X-JWT': token },
  ] as Array<Record<string, string>>) {
    const res = await service.get(headers);
    t.is(res.status, 200, JSON.stringify(res.body));
    t.like(res.body.user, { name: 'alice', aud: 'api' });
    t.regex(String(res.body.user?.id), /^direct_[0-9a-f]{40}$/);
  }
  t.is(service.reached, 3);
});

test('a custom headerName carries the token (Bearer still does); X-JWT is then not read', async (t) => {
  const a = await keyOf();
  const token = await mint(a);
  const service = await protectedService(t, { jwks: (await keyServer(t, [a.jwk])).url, headerName: 'X-Api-Token' });
  t.is((await service.get({ 'X-Api-Token': token })).status, 200);
  t.is((await service.get({ Authorization: `Bearer ${token}` })).status, 200);
  t.like(await service.get({ 'X-JWT': token }), { status: 401, body: { code: 'no_token' } });
});

test('no token: 401 JSON {error, code: "no_token"} and the route behind does not run', async (t) => {
  const service = await protectedService(t, { jwks: (await keyServer(t, [(await keyOf()).jwk])).url });
  for (const headers of [
    {},
    { Authorization: 'Basic YWxpY2U6cHc=' },
    { Authorization: 'Bearer ' },
    { 'X-JWT': '' },
  ] as Array<Record<string, string>>) {
    const res = await service.get(headers);
    t.is(res.status, 401);
    t.is(res.type, 'application/json; charset=utf-8');
    t.deepEqual(res.body, { error: 'token is not presented', code: 'no_token' });
  }
  t.is(service.reached, 0);
});

test('the claims: expired by the injected clock → token_expired, nbf ahead → token_not_valid_yet, another issuer → token_invalid, aud outside audiences (case-insensitive) → aud_rejected, no user → no_user', async (t) => {
  const clock = manualClock();
  const a = await keyOf();
  const server = await keyServer(t, [a.jwk]);
  const service = await protectedService(t, { jwks: server.url, audiences: ['API', 'web'], clock });
  const code = async (claims: Record<string, unknown>) => {
    const res = await service.get({ Authorization: `Bearer ${await mint(a, claims, clock())}` });
    return res.status === 200 ? `200 ${String(res.body.user?.aud)}` : `${res.status} ${res.body.code}`;
  };
  const now = Math.floor(clock() / 1000);
  t.is(await code({}), '200 api');
  t.is(await code({ aud: ['web'] }), '200 web');
  t.is(await code({ exp: now + 60 }), '200 api');
  const expiring = await mint(a, { exp: now + 60 }, clock());
  clock.advance(60_000);
  t.like(await service.get({ 'X-JWT': expiring }), { status: 401, body: { code: 'token_expired' } });
  t.is(await code({ nbf: Math.floor(clock() / 1000) + 30 }), '401 token_not_valid_yet');
  t.is(await code({ iss: 'someone-else' }), '401 token_invalid');
  t.is(await code({ aud: 'billing' }), '401 aud_rejected');
  t.is(await code({ user: undefined, handshake: { state: 'abc', from: '/' } }), '401 no_user');
  t.is(await code({ handshake: { state: 'abc' } }), '401 no_user');
  t.is(await code({ user: undefined }), '401 no_user');
  t.is(server.fetches, 1);
  t.is(service.reached, 3);
});

test('the issuer option: the app\'s own issuer is accepted and the default "authkoa" refused; without audiences any audience passes', async (t) => {
  const a = await keyOf();
  const v = verifier({ jwks: (await keyServer(t, [a.jwk])).url, issuer: 'https://app.example' });
  t.is(await outcome(v, await mint(a, { iss: 'https://app.example', aud: 'anything' })), 'accepted');
  t.is(await outcome(v, await mint(a)), 'token_invalid');
});

test('garbage and tampered tokens: 401 token_invalid', async (t) => {
  const a = await keyOf();
  const service = await protectedService(t, { jwks: (await keyServer(t, [a.jwk])).url });
  const token = await mint(a);
  const [h, p, s] = token.split('.') as [string, string, string];
  const bob = Buffer.from(Buffer.from(p, 'base64url').toString().replace('alice', 'bob')).toString('base64url');
  const garbage = [
    'garbage',
    'a.b',
    'a.b.c',
    '..',
    `${h}.${p}`,
    `${h}.${p}.`,
    `${h}.${bob}.${s}`,
    tamperedSignature(`${h}.${p}.${s}`),
    `${token}.${s}`,
    `e30.${p}.${s}`,
  ];
  for (const g of garbage)
    t.like(await service.get({ 'X-JWT': g }), { status: 401, body: { code: 'token_invalid' } }, g.slice(0, 60));
  t.is((await service.get({ 'X-JWT': token })).status, 200, 'the untouched token passes');
  // Past Node's 16 KB header limit: only .verify() can be handed one.
  t.is(await outcome(verifier({ jwks: { keys: [a.jwk] } }), `${h}.${p}.${'A'.repeat(17_000)}`), 'token_invalid');
});

test('algorithm and key confusion: HS256 with the public key as secret, none, an embedded jwk, jku (never fetched), an unknown kid, another alg for the key → 401 token_invalid', async (t) => {
  const [r, e, attacker, p256] = await Promise.all([keyOf('RS256'), keyOf('EdDSA'), keyOf('EdDSA'), keyOf('ES256')]);
  const server = await keyServer(t, [r.jwk, e.jwk]);
  const elsewhere = await keyServer(t, [attacker.jwk]);
  const service = await protectedService(t, { jwks: server.url });
  const claims = JSON.parse(Buffer.from((await mint(e)).split('.')[1]!, 'base64url').toString()) as object;
  const hmac = (secret: string) => (input: string) => createHmac('sha256', secret).update(input).digest();
  const byE = (input: string) => cryptoSign(null, Buffer.from(input), e.privateKey);
  const byAttacker = (input: string) => cryptoSign(null, Buffer.from(input), attacker.privateKey);
  const forged: Array<[string, string]> = [
    ['HS256, the RSA public PEM as secret', forge({ alg: 'HS256', kid: r.kid, typ: 'JWT' }, claims, hmac(r.publicPem))],
    [
      'HS256, the published JWK JSON as secret',
      forge({ alg: 'HS256', kid: r.kid, typ: 'JWT' }, claims, hmac(JSON.stringify(r.jwk))),
    ],
    ['HS256, no kid', forge({ alg: 'HS256', typ: 'JWT' }, claims, hmac(e.publicPem))],
    ['none, empty signature', forge({ alg: 'none', kid: e.kid, typ: 'JWT' }, claims, () => Buffer.alloc(0))],
    ['none, with a signature', forge({ alg: 'none', kid: e.kid, typ: 'JWT' }, claims, byE)],
    [
      'an embedded jwk of its own key',
      forge({ alg: 'EdDSA', kid: attacker.kid, jwk: attacker.jwk, typ: 'JWT' }, claims, byAttacker),
    ],
    [
      'an embedded jwk under the real kid',
      forge({ alg: 'EdDSA', kid: e.kid, jwk: attacker.jwk, typ: 'JWT' }, claims, byAttacker),
    ],
    [
      'jku to a set holding its key',
      forge({ alg: 'EdDSA', kid: attacker.kid, jku: elsewhere.url, typ: 'JWT' }, claims, byAttacker),
    ],
    ['an unknown kid, validly signed', forge({ alg: 'EdDSA', kid: attacker.kid, typ: 'JWT' }, claims, byAttacker)],
    ['the real kid, signed by another key', forge({ alg: 'EdDSA', kid: e.kid, typ: 'JWT' }, claims, byAttacker)],
    [
      "ES256 under the EdDSA key's kid",
      forge({ alg: 'ES256', kid: e.kid, typ: 'JWT' }, claims, (i) =>
        cryptoSign('sha256', Buffer.from(i), { key: p256.privateKey, dsaEncoding: 'ieee-p1363' }),
      ),
    ],
    ['the real key, crit', forge({ alg: 'EdDSA', kid: e.kid, crit: ['exp'], typ: 'JWT' }, claims, byE)],
  ];
  const notRefused = [];
  for (const [what, token] of forged) {
    const res = await service.get({ Authorization: `Bearer ${token}` });
    if (res.status !== 401 || res.body.code !== 'token_invalid') notRefused.push([what, res.status, res.body.code]);
  }
  t.deepEqual(notRefused, []);
  t.is(elsewhere.fetches, 0, 'the jku was never fetched');
  t.is(
    (await service.get({ 'X-JWT': forge({ alg: 'EdDSA', kid: e.kid, typ: 'JWT' }, claims, byE) })).status,
    200,
    'the control: the same claims under a clean header by the real key',
  );
  t.is(service.reached, 1);
});

test(".verify(): resolves to the claims; rejects with the app's AuthError (VerifyError its former name) carrying code and status; a missing token is no_token", async (t) => {
  const keys = await Promise.all([keyOf('EdDSA'), keyOf('ES256'), keyOf('RS256')]);
  const v = verifier({
    jwks: (
      await keyServer(
        t,
        keys.map((k) => k.jwk),
      )
    ).url,
  });
  for (const k of keys) {
    const claims = await v.verify(await mint(k));
    t.like(claims, { iss: 'authkoa', aud: 'api', user: { name: 'alice', aud: 'api' } }, k.alg);
  }
  const refused = await t.throwsAsync(v.verify(await mint(keys[0]!, { aud: ['a', 'b'] })), {
    instanceOf: MainAuthError,
  });
  t.like(refused, { name: 'AuthError', code: 'token_invalid', status: 401 });
  t.true(refused instanceof AuthError && refused instanceof VerifyError, 'one class under both names');
  for (const missing of [undefined, '', ['a', 'b']])
    await t.throwsAsync(v.verify(missing as unknown as string), { instanceOf: AuthError, code: 'no_token' });
});

test('a JWK set given as an object verifies with no HTTP', async (t) => {
  const [a, b] = await Promise.all([keyOf('ES256'), keyOf()]);
  const v = verifier({ jwks: { keys: [a.jwk] } });
  t.is(await outcome(v, await mint(a)), 'accepted');
  t.is(await outcome(v, await mint(b)), 'token_invalid');
});

test('the first verify fetches the set once, and later ones within maxAge not at all', async (t) => {
  const a = await keyOf();
  const server = await keyServer(t, [a.jwk]);
  const v = verifier({ jwks: server.url });
  t.is(server.fetches, 0, 'building the verifier fetches nothing');
  for (let i = 0; i < 5; i++) t.is(await outcome(v, await mint(a)), 'accepted');
  t.is(server.fetches, 1);
});

test('100 parallel verifies on a fresh verifier fetch the set once', async (t) => {
  const a = await keyOf();
  const server = await keyServer(t, [a.jwk]);
  const v = verifier({ jwks: server.url });
  const token = await mint(a);
  t.deepEqual(new Set(await Promise.all(Array.from({ length: 100 }, () => outcome(v, token)))), new Set(['accepted']));
  t.is(server.fetches, 1);
});

test('an unknown kid refetches the set; another within the 30 s cooldown does not and is refused; after it, it is fetched and accepted', async (t) => {
  const clock = manualClock();
  const [a, b, stranger] = await Promise.all([keyOf(), keyOf(), keyOf()]);
  const server = await keyServer(t, [a.jwk]);
  const v = verifier({ jwks: server.url, clock });
  t.is(await outcome(v, await mint(a, {}, clock())), 'accepted');
  clock.advance(30_000);
  t.is(await outcome(v, await mint(stranger, {}, clock())), 'token_invalid');
  t.is(server.fetches, 2, 'the unknown kid fetched the set again');
  server.keys = [a.jwk, b.jwk];
  clock.advance(29_999);
  t.is(await outcome(v, await mint(b, {}, clock())), 'token_invalid', 'within the cooldown the new key is not seen');
  t.is(server.fetches, 2, 'and not fetched');
  clock.advance(1);
  t.is(await outcome(v, await mint(b, {}, clock())), 'accepted');
  t.is(await outcome(v, await mint(a, {}, clock())), 'accepted');
  t.is(server.fetches, 3);
});

test('past maxAge the set is fetched again: a key the app dropped is refused from then on', async (t) => {
  const clock = manualClock();
  const [a, b] = await Promise.all([keyOf(), keyOf()]);
  const server = await keyServer(t, [a.jwk, b.jwk]);
  const v = verifier({ jwks: server.url, clock, maxAge: '10m' });
  t.is(await outcome(v, await mint(a, {}, clock())), 'accepted');
  server.keys = [b.jwk];
  clock.advance(10 * 60_000 - 1);
  t.is(await outcome(v, await mint(a, {}, clock())), 'accepted', 'the held set is used until maxAge');
  t.is(server.fetches, 1);
  clock.advance(1);
  t.is(await outcome(v, await mint(a, {}, clock())), 'token_invalid');
  t.is(await outcome(v, await mint(b, {}, clock())), 'accepted');
  t.is(server.fetches, 2);
});

/** The ways a key server fails; each returns the fetches the verifier's attempt adds (a closed port sees none). */
const outages: Record<string, (s: KeyServer) => Promise<number>> = {
  'answers 503': async (s) => ((s.mode = 'status 503'), 1),
  'is a closed port': async (s) => (await s.close(), 0),
  'hangs past the timeout': async (s) => ((s.mode = 'hanging'), 1),
  'sends a 10 MB body': async (s) => ((s.mode = '10 MB body'), 1),
};

for (const [what, breakIt] of Object.entries(outages)) {
  test(`the key server ${what} after the keys were fetched: tokens of held keys keep verifying, an unknown kid is refused`, async (t) => {
    const clock = manualClock();
    const [a, stranger] = await Promise.all([keyOf(), keyOf()]);
    const server = await keyServer(t, [a.jwk]);
    // Long enough for the healthy first fetch on a loaded machine (300 ms was not), short enough for a hang.
    const v = verifier({ jwks: server.url, clock, maxAge: '10m', timeout: '5s' });
    t.is(await outcome(v, await mint(a, {}, clock())), 'accepted');
    const attempt = await breakIt(server);
    clock.advance(10 * 60_000);
    // A verifier that waited on the hanging server with no timeout would never answer: AVA's timeout says so.
    t.is(await outcome(v, await mint(a, {}, clock())), 'accepted', 'the held key still verifies');
    t.is(server.fetches, 1 + attempt, 'the stale set was asked for again');
    clock.advance(30_000);
    t.is(await outcome(v, await mint(stranger, {}, clock())), 'token_invalid');
  });

  test(`the key server ${what} from the start: 503 {code: "keys_unavailable"}, never 2xx, also after the cooldown`, async (t) => {
    const clock = manualClock();
    const a = await keyOf();
    const server = await keyServer(t, [a.jwk]);
    await breakIt(server);
    const service = await protectedService(t, { jwks: server.url, clock, timeout: '300ms' });
    const token = await mint(a, {}, clock());
    t.like(await service.get({ 'X-JWT': token }), {
      status: 503,
      type: 'application/json; charset=utf-8',
      body: { code: 'keys_unavailable' },
    });
    clock.advance(30_000);
    t.like(await service.get({ 'X-JWT': token }), { status: 503, body: { code: 'keys_unavailable' } });
    t.is(service.reached, 0);
  });
}

test('.verify() without keys rejects 503 keys_unavailable; once the set answers again it verifies, after the cooldown', async (t) => {
  const clock = manualClock();
  const a = await keyOf();
  const server = await keyServer(t, [a.jwk]);
  server.mode = 'status 503';
  const v = verifier({ jwks: server.url, clock });
  const err = await t.throwsAsync(v.verify(await mint(a, {}, clock())), {
    instanceOf: AuthError,
    message: /answered 503/,
  });
  t.like(err, { code: 'keys_unavailable', status: 503 });
  server.mode = 'ok';
  clock.advance(29_999);
  t.is(await outcome(v, await mint(a, {}, clock())), 'keys_unavailable', 'not asked again within the cooldown');
  clock.advance(1);
  t.is(await outcome(v, await mint(a, {}, clock())), 'accepted');
  t.is(server.fetches, 2);
});

test("JWKs a set may not pass off are ignored: a kid that is not the key's thumbprint, a private key (d), use enc, an oct key, an alg not the key's", async (t) => {
  const [a, b, c, d] = await Promise.all([keyOf(), keyOf(), keyOf('ES256'), keyOf()]);
  const secret = Buffer.from('shared-secret').toString('base64url');
  const published = [
    { ...a.jwk, kid: 'key-a' },
    { ...b.jwk, kid: a.kid },
    { ...c.privateJwk, kid: c.kid, alg: 'ES256', use: 'sig' },
    { ...d.jwk, use: 'enc' },
    { kty: 'oct', k: secret, kid: 'hmac', alg: 'HS256' },
    { ...d.jwk, kid: d.kid, alg: 'RS256' },
  ];
  const v = verifier({ jwks: (await keyServer(t, published)).url });
  const hs256 = forge(
    { alg: 'HS256', kid: 'hmac', typ: 'JWT' },
    { iss: 'authkoa', aud: 'api', exp: Math.floor(Date.now() / 1000) + 60, user: { id: 'x', name: 'x' } },
    (i) => createHmac('sha256', 'shared-secret').update(i).digest(),
  );
  const tokens = {
    'a as key-a': await mint({ ...a, kid: 'key-a' }),
    'a under its own kid': await mint(a),
    "b under a's kid": await mint({ ...b, kid: a.kid }),
    'c (private in the set)': await mint(c),
    'd (enc, RS256)': await mint(d),
    'HS256 by the oct key': hs256,
  };
  for (const [what, token] of Object.entries(tokens)) t.is(await outcome(v, token), 'token_invalid', what);
  const clean = verifier({ jwks: (await keyServer(t, [a.jwk, b.jwk, c.jwk, d.jwk])).url });
  for (const k of [a, b, c, d])
    t.is(await outcome(clean, await mint(k)), 'accepted', 'the control: the same keys published as they are');
  t.throws(() => verifier({ jwks: { keys: published } }), {
    instanceOf: TypeError,
    message: /jwks holds no usable key/,
  });
});

test('bad options: a TypeError naming the option', (t) => {
  const url = 'https://app.example/auth/.well-known/jwks.json';
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /options object/],
    [{}, /jwks must be/],
    [{ jwks: 42 }, /jwks must be/],
    [{ jwks: 'not a url' }, /jwks must be an http\(s\) URL/],
    [{ jwks: 'ftp://app.example/jwks.json' }, /jwks must be an http\(s\) URL/],
    [{ jwks: { keys: 'none' } }, /jwks must be/],
    [{ jwks: { keys: [] } }, /jwks holds no usable key/],
    [{ jwks: url, issuer: '' }, /issuer/],
    [{ jwks: url, audiences: 'api' }, /audiences/],
    [{ jwks: url, audiences: ['api', 1] }, /audiences/],
    [{ jwks: url, headerName: 'X JWT' }, /headerName/],
    [{ jwks: url, headerName: 5 }, /headerName/],
    [{ jwks: url, maxAge: 'soon' }, /verifier: maxAge/],
    [{ jwks: url, cooldown: -1 }, /verifier: cooldown/],
    [{ jwks: url, timeout: '0s' }, /verifier: timeout/],
    [{ jwks: url, clock: 5 }, /clock/],
    [{ jwks: url, audience: ['api'] }, /unknown option "audience"/],
  ];
  for (const [opts, message] of cases)
    t.throws(() => verifier(opts as VerifierOptions), { instanceOf: TypeError, message }, JSON.stringify(opts));
  t.notThrows(() =>
    verifier({
      jwks: new URL(url),
      issuer: 'x',
      audiences: [],
      headerName: 'X-Token',
      maxAge: 1000,
      cooldown: '1s',
      timeout: '2s',
      clock: Date.now,
    }),
  );
});
