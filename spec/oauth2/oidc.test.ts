import test from 'ava';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { sha1 } from '../../lib/user.js';
import { Client, decodeJwt, manualClock, serve, startApp } from '../helpers/http.js';
import { options, startLogin } from './fixtures.js';

/** A scripted OIDC issuer: discovery, JWKS and a token endpoint whose id_token the test shapes. */
async function fakeIssuer() {
  const good = await generateKeyPair('ES256');
  const other = await generateKeyPair('ES256');
  const script = {
    published: [{ ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] as JWK[],
    signKey: good.privateKey as CryptoKey,
    kid: 'k1',
    nonce: '',
    claims: {} as Record<string, unknown>,
    discoveryIssuer: undefined as string | undefined,
    userinfo: undefined as Record<string, unknown> | undefined,
    idToken: undefined as string | undefined | null,
    discoveryDown: false,
  };
  let jwksFetches = 0;
  const served = await serve(async (req, res) => {
    for await (const _ of req);
    const path = new URL(req.url!, 'http://x').pathname;
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/openid-configuration') {
      if (script.discoveryDown) return json(500, {});
      return json(200, {
        issuer: script.discoveryIssuer ?? served.url,
        authorization_endpoint: `${served.url}/auth`,
        token_endpoint: `${served.url}/token`,
        jwks_uri: `${served.url}/jwks`,
        ...(script.userinfo ? { userinfo_endpoint: `${served.url}/userinfo` } : {}),
        id_token_signing_alg_values_supported: ['ES256', 'RS256', 'none', 'HS256'],
      });
    }
    if (path === '/jwks') {
      jwksFetches++;
      return json(200, { keys: script.published });
    }
    if (path === '/userinfo') return json(200, script.userinfo);
    if (path === '/token') {
      const now = Math.floor(Date.now() / 1000);
      const idToken =
        script.idToken !== undefined
          ? script.idToken
          : await new SignJWT({
              iss: served.url,
              aud: 'oidc-client',
              sub: 'olga-sub',
              iat: now,
              exp: now + 300,
              nonce: script.nonce,
              name: 'Olga Idp',
              picture: 'https://img.test/olga.png',
              ...script.claims,
            })
              .setProtectedHeader({ alg: 'ES256', kid: script.kid })
              .sign(script.signKey);
      return json(200, {
        access_token: 'at',
        token_type: 'Bearer',
        ...(idToken === null ? {} : { id_token: idToken }),
      });
    }
    res.writeHead(404).end();
  });
  return { ...served, script, good, other, jwksFetches: () => jwksFetches };
}

async function setup(t: any, extra: Record<string, unknown> = {}) {
  const idp = await fakeIssuer();
  t.teardown(() => idp.close());
  const clock = manualClock(Date.now());
  const app = await startApp(
    options([{ kind: 'oidc', name: 'idp', issuer: idp.url, cid: 'oidc-client', csecret: 'x', ...extra }], { clock }),
  );
  t.teardown(() => app.close());
  const login = async (c = new Client(app.url), iss?: string) => {
    const authorize = await startLogin(c, 'idp');
    idp.script.nonce = authorize.searchParams.get('nonce')!;
    const q = new URLSearchParams({ code: 'c', state: authorize.searchParams.get('state')! });
    if (iss) q.set('iss', iss);
    const res = await c.fetch(`/auth/idp/callback?${q}`);
    return { res, c, body: (await res.json()) as Record<string, any> };
  };
  return { idp, app, login, clock };
}

test('id_token claims alone map to the user when the issuer has no userinfo endpoint', async (t) => {
  const { login, idp } = await setup(t);
  const { res, body, c } = await login(undefined, idp.url);
  t.is(res.status, 200);
  t.deepEqual(body, { name: 'Olga Idp', id: `idp_${sha1('olga-sub')}`, picture: 'https://img.test/olga.png' });
  t.is(decodeJwt(c.jar.get('JWT')!).user.id, body.id);
});

test('a bad id_token signature → 403 invalid_id_token, no session', async (t) => {
  const { login, idp } = await setup(t);
  idp.script.signKey = idp.other.privateKey;
  const { res, body, c } = await login();
  t.is(res.status, 403);
  t.is(body.code, 'invalid_id_token');
  t.regex(body.error, /^idp: invalid id_token/);
  t.false(c.jar.has('JWT'));
});

test('a wrong nonce → 403 invalid_id_token', async (t) => {
  const { login, idp } = await setup(t);
  idp.script.claims = { nonce: 'someone-elses-nonce' };
  const { res, body } = await login();
  t.is(res.status, 403);
  t.deepEqual(body, { error: 'idp: invalid id_token (nonce mismatch)', code: 'invalid_id_token' });
});

test('wrong audience, wrong issuer, expired, or alg none/HS256 id_tokens → 403', async (t) => {
  const { login, idp } = await setup(t);
  const now = Math.floor(Date.now() / 1000);
  for (const claims of [
    { aud: 'another-client' },
    { iss: 'https://evil.test' },
    { exp: now - 3600 },
    { aud: ['oidc-client', 'x'], azp: 'x' },
  ]) {
    idp.script.claims = claims;
    const { res, body } = await login();
    t.is(res.status, 403, JSON.stringify(claims));
    t.is(body.code, 'invalid_id_token');
  }
  idp.script.claims = {};
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { iss: idp.url, aud: 'oidc-client', sub: 'olga-sub', exp: now + 300, iat: now };
  idp.script.idToken = `${b64({ alg: 'none' })}.${b64(payload)}.`;
  t.is((await login()).res.status, 403);
  idp.script.idToken = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('x'));
  t.is((await login()).res.status, 403);
  idp.script.idToken = null;
  const missing = await login();
  t.is(missing.res.status, 502);
  t.is(missing.body.code, 'bad_provider_response');
});

test('userinfo claims are merged; a userinfo sub that differs from the id_token is refused', async (t) => {
  const { login, idp } = await setup(t);
  idp.script.userinfo = {
    sub: 'olga-sub',
    name: 'Olga From Userinfo',
    email: 'olga@idp.test',
    email_verified: true,
    preferred_username: 'olga',
  };
  idp.script.claims = { name: undefined };
  const ok = await login();
  t.is(ok.res.status, 200);
  t.is(ok.body.email, 'olga@idp.test');
  t.is(ok.body.name, 'Olga From Userinfo');
  idp.script.userinfo = { sub: 'mallory' };
  const bad = await login();
  t.is(bad.res.status, 502);
  t.is(bad.body.code, 'bad_user_info');
});

test('a callback carrying another issuer (RFC 9207 iss) is refused', async (t) => {
  const { login } = await setup(t);
  const { res, body } = await login(undefined, 'https://mix-up.test');
  t.is(res.status, 403);
  t.is(body.code, 'issuer_mismatch');
});

test('JWKS is cached; an unknown kid refetches it (key rotation), at most every 30 s', async (t) => {
  const { login, idp, clock } = await setup(t);
  t.is((await login()).res.status, 200);
  t.is((await login()).res.status, 200);
  t.is(idp.jwksFetches(), 1, 'second login used the cached key set');
  const rotated = await generateKeyPair('ES256');
  idp.script.published = [{ ...(await exportJWK(rotated.publicKey)), kid: 'k2', alg: 'ES256' }];
  idp.script.signKey = rotated.privateKey;
  idp.script.kid = 'k2';
  const early = await login();
  t.is(early.res.status, 403, 'within the cool-down an unknown kid is not refetched');
  clock.advance(31_000);
  t.is((await login()).res.status, 200);
  t.is(idp.jwksFetches(), 2);
});

test('discovery: another issuer → 502 at login; down → 503, and the next login retries', async (t) => {
  const { app, idp } = await setup(t);
  const c = new Client(app.url);
  idp.script.discoveryIssuer = 'https://impostor.test';
  const res = await c.fetch('/auth/idp/login');
  t.is(res.status, 502);
  t.is(((await res.json()) as { code: string }).code, 'bad_provider_response');
  idp.script.discoveryIssuer = undefined;
  idp.script.discoveryDown = true;
  const down = await c.fetch('/auth/idp/login');
  t.is(down.status, 503);
  t.deepEqual(await down.json(), { error: 'idp: discovery document answered 500', code: 'provider_unavailable' });
  idp.script.discoveryDown = false;
  t.is((await c.fetch('/auth/idp/login')).status, 302);
});

test('a custom mapUser replaces the standard claim mapping', async (t) => {
  const { login } = await setup(t, {
    mapUser: (claims: Record<string, string>) => ({ id: `u-${claims.sub}`, name: claims.name!.toUpperCase() }),
  });
  const { body } = await login();
  t.deepEqual(body, { name: 'OLGA IDP', id: `idp_${sha1('u-olga-sub')}`, picture: '' });
});
