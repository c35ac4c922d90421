/**
 * Strict token form for id_tokens: one without `exp` would be good forever, so Apple and OIDC logins refuse
 * it (403 invalid_id_token, no session), while the same id_token with `exp` logs in.
 */
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { CLIENT_ID, KEY_ID, TEAM_ID, startAppleStandin, teamKey } from '../apple/standin.js';
import { Client, manualClock, serve, startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const SECRET = 'strict-id-token-secret-0123456789abcdef';

test('Apple: an id_token without exp → 403 invalid_id_token, no session; with exp the login succeeds', async (t) => {
  const key = teamKey();
  const apple = await startAppleStandin(key.publicKey);
  t.teardown(() => apple.close());
  const dir = tempDir(t, 'authkoa-strict-');
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
      },
    ],
  });
  t.teardown(() => app.close());

  /** Starts the login, reads the stand-in's form_post page and posts it back to the callback like a browser. */
  const login = async (c: Client) => {
    const start = await c.fetch('/auth/apple/login?from=/private');
    const page = await (await fetch(new URL(start.headers.get('location')!))).text();
    const action = /action="([^"]+)"/.exec(page)![1]!;
    const fields: Record<string, string> = {};
    for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
      fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
    return c.fetch(new URL(action).pathname, { method: 'POST', form: fields });
  };

  apple.script.claims = { exp: undefined };
  const refused = new Client(app.url);
  const res = await login(refused);
  t.is(res.status, 403);
  t.is(((await res.json()) as { code: string }).code, 'invalid_id_token');
  t.false(refused.jar.has('JWT'));

  apple.script.claims = {};
  const control = new Client(app.url);
  t.is((await login(control)).status, 303);
  t.true(control.jar.has('JWT'));
});

/** A scripted OIDC issuer (discovery, JWKS, token endpoint) whose id_token claims the test shapes. */
async function scriptedIssuer(t: ExecutionContext, clock: () => number) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const script = { nonce: '', claims: {} as Record<string, unknown> };
  const served = await serve(async (req, res) => {
    for await (const _ of req);
    const path = new URL(req.url!, 'http://x').pathname;
    const json = (body: unknown) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/openid-configuration') {
      return json({
        issuer: served.url,
        authorization_endpoint: `${served.url}/auth`,
        token_endpoint: `${served.url}/token`,
        jwks_uri: `${served.url}/jwks`,
        id_token_signing_alg_values_supported: ['ES256'],
      });
    }
    if (path === '/jwks') return json({ keys: [jwk] });
    if (path === '/token') {
      const now = Math.floor(clock() / 1000);
      const claims: Record<string, unknown> = {
        iss: served.url,
        aud: 'oidc-client',
        sub: 'olga-sub',
        iat: now,
        exp: now + 300,
        nonce: script.nonce,
        name: 'Olga Idp',
        ...script.claims,
      };
      for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
      const idToken = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
      return json({ access_token: 'at', token_type: 'Bearer', id_token: idToken });
    }
    res.writeHead(404).end();
  });
  t.teardown(() => served.close());
  return { ...served, script };
}

test('OIDC: an id_token without exp → 403 invalid_id_token, no session; with exp the login succeeds', async (t) => {
  const clock = manualClock();
  const idp = await scriptedIssuer(t, clock);
  const app = await startApp({
    secret: SECRET,
    clock,
    providers: [{ kind: 'oidc', name: 'idp', issuer: idp.url, cid: 'oidc-client', csecret: 'x' }],
  });
  t.teardown(() => app.close());
  const login = async (c: Client) => {
    const start = await c.fetch('/auth/idp/login');
    if (start.status !== 302) throw new Error(`login answered ${start.status}: ${await start.text()}`);
    const authorize = new URL(start.headers.get('location')!);
    idp.script.nonce = authorize.searchParams.get('nonce')!;
    const res = await c.fetch(
      `/auth/idp/callback?${new URLSearchParams({ code: 'c', state: authorize.searchParams.get('state')! })}`,
    );
    return { res, body: (await res.json()) as Record<string, unknown> };
  };

  idp.script.claims = { exp: undefined };
  const refused = new Client(app.url);
  const { res, body } = await login(refused);
  t.is(res.status, 403);
  t.is(body.code, 'invalid_id_token');
  t.false(refused.jar.has('JWT'));

  idp.script.claims = {};
  const control = new Client(app.url);
  t.is((await login(control)).res.status, 200);
  t.true(control.jar.has('JWT'));
});
