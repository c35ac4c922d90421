import type http from 'node:http';
import test from 'ava';
import Koa from 'koa';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { authKoa } from '../../lib/index.js';
import { verifier } from '../../lib/verify/index.js';
import { sha1 } from '../../lib/user.js';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, decodeJwt, serve } from '../helpers/http.js';
import { checker, options, signIn } from './fixtures.js';
import { pemKey, relyingParty, rpSignIn, RP, SPA, startProvider } from './openid-fixtures.js';

test('openid-client discovers the server of kind server and the discovery document lists what it supports', async (t) => {
  const { app, serverURL } = await startProvider(t);
  const config = await relyingParty(serverURL, RP);
  const meta = config.serverMetadata();
  t.is(meta.issuer, serverURL);
  t.is(meta.authorization_endpoint, `${serverURL}/authorize`);
  t.is(meta.token_endpoint, `${serverURL}/access_token`);
  t.is(meta.userinfo_endpoint, `${serverURL}/userinfo`);
  t.is(meta.jwks_uri, `${serverURL}/.well-known/jwks.json`);
  t.deepEqual(meta.response_types_supported, ['code']);
  t.deepEqual(meta.subject_types_supported, ['public']);
  t.deepEqual(meta.id_token_signing_alg_values_supported, ['RS256', 'EdDSA'], 'RS256 beside the EdDSA key');
  t.deepEqual(meta.scopes_supported, ['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);
  t.deepEqual(meta.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
  t.deepEqual(meta.code_challenge_methods_supported, ['S256']);
  t.true(meta.claims_supported!.includes('auth_time') && meta.claims_supported!.includes('nonce'));
  t.is(meta.authorization_response_iss_parameter_supported, true);
  // The server's key set is the service's keys and the RSA key of its RS256 id_tokens.
  const own = await fetch(meta.jwks_uri!);
  t.is(own.headers.get('cache-control'), 'public, max-age=300');
  t.is(own.headers.get('access-control-allow-origin'), '*');
  const ownKeys = ((await own.json()) as { keys: { kid: string; alg: string }[] }).keys;
  const service = (await (await fetch(`${app.url}/auth/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  t.deepEqual(
    ownKeys.filter((k) => k.alg !== 'RS256'),
    service.keys,
  );
  t.is(ownKeys.filter((k) => k.alg === 'RS256').length, 1);
});

test('a confidential client runs the code flow with PKCE and nonce; openid-client validates the id_token and reads userinfo', async (t) => {
  const { app, serverURL } = await startProvider(t);
  const config = await relyingParty(serverURL, RP);
  const { login, callback, tokens } = await rpSignIn(config, serverURL);
  t.is(callback.searchParams.get('iss'), serverURL, 'RFC 9207 iss on the authorization response');
  const claims = tokens.claims()!;
  t.is(claims.iss, serverURL);
  t.is(claims.sub, 'alice');
  t.is(claims.aud, 'rp');
  t.is(claims.nonce, login.nonce);
  t.is(typeof claims.auth_time, 'number');
  t.is(claims.exp - claims.iat, 3600);
  t.is(claims.name, 'Alice Liddell');
  t.is(claims.email, 'alice@example.test');
  t.is(tokens.scope, 'openid profile email');
  // Signed RS256 (the client registered no other algorithm) with the RSA key the server publishes beside the service's.
  t.is(decodeProtectedHeader(tokens.id_token!).alg, 'RS256');
  const verified = await jwtVerify(
    tokens.id_token!,
    createRemoteJWKSet(new URL(`${serverURL}/.well-known/jwks.json`)),
    {
      issuer: serverURL,
      audience: 'rp',
    },
  );
  t.is(verified.payload.sub, 'alice');
  const service = (await (await fetch(`${app.url}/auth/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  t.false(
    service.keys.some((k) => k.kid === decodeProtectedHeader(tokens.id_token!).kid),
    'not a session key',
  );

  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  t.deepEqual(
    { ...info },
    {
      sub: 'alice',
      name: 'Alice Liddell',
      preferred_username: 'alice',
      picture: `${serverURL}/avatar?user=alice`,
      email: 'alice@example.test',
    },
  );
});

test('a public client (no secret, auth method none) runs the same flow', async (t) => {
  const { serverURL } = await startProvider(t);
  const config = await relyingParty(serverURL, SPA);
  const { tokens } = await rpSignIn(config, serverURL, 'bob', 'builder');
  const claims = tokens.claims()!;
  t.is(claims.aud, 'spa');
  t.is(claims.sub, 'bob');
  t.is(claims.name, 'bob', 'a checker answering true: the name is the id');
  t.false('email' in claims);
  t.deepEqual(
    { ...(await oidc.fetchUserInfo(config, tokens.access_token, 'bob')) },
    { sub: 'bob', name: 'bob', preferred_username: 'bob', picture: `${serverURL}/avatar?user=bob` },
  );
});

test('a standalone server given signing keys (ES256) is an OpenID provider too; a client registered for ES256 gets ES256', async (t) => {
  const spa = { ...SPA, idTokenSignedResponseAlg: 'ES256' as const };
  const server = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    checker,
    clients: [spa],
    signing: { alg: 'ES256', key: pemKey('ES256') },
  });
  t.teardown(() => server.close());
  const config = await relyingParty(server.url, spa);
  t.deepEqual(config.serverMetadata().id_token_signing_alg_values_supported, ['RS256', 'ES256']);
  const { tokens } = await rpSignIn(config, server.url);
  t.is(decodeProtectedHeader(tokens.id_token!).alg, 'ES256');
  t.is(tokens.claims()!.sub, 'alice');
});

test('a second authkoa app logs in with kind oidc against the local server', async (t) => {
  // App B listens first, so its callback URL can be registered at A's server before B is configured.
  let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
  const shop = await serve((req, res) => handler(req, res));
  t.teardown(() => shop.close());
  const shopClient = { id: 'shop', secret: 'shop-secret', redirectURIs: [`${shop.url}/auth/corp/callback`] };
  const { serverURL } = await startProvider(t, {}, { clients: [shopClient] });
  const auth = authKoa({
    ...options([
      {
        kind: 'oidc',
        name: 'corp',
        issuer: serverURL,
        cid: 'shop',
        csecret: 'shop-secret',
        scopes: ['openid', 'profile', 'email'],
      },
    ]),
    url: shop.url,
  });
  const contract = contractRecorder(auth);
  t.teardown(() => contract.closed(() => auth.close()));
  const app = new Koa();
  app.silent = true;
  app.use(contract.use);
  app.use(auth);
  handler = app.callback();

  const c = new Client(shop.url);
  const start = await c.fetch('/auth/corp/login?from=/');
  t.is(start.status, 302);
  const authorize = new URL(start.headers.get('location')!);
  t.is(authorize.origin, serverURL);
  t.truthy(authorize.searchParams.get('nonce'));
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
  const callback = await signIn(new Client(serverURL), authorize.href, 'alice', 'wonderland');
  const done = await c.fetch(callback.pathname + callback.search);
  t.is(done.status, 303, await done.clone().text());
  const user = decodeJwt(c.jar.get('JWT')!).user;
  t.is(user.id, `corp_${sha1('alice')}`);
  t.is(user.name, 'Alice Liddell');
  t.is(user.email, 'alice@example.test');
});

test('an id_token is no session token: the app that signed it and authkoa/verify refuse it', async (t) => {
  // Signed with the service's own key (the client asked for EdDSA), so only what the token says can refuse it.
  const rp = { ...RP, idTokenSignedResponseAlg: 'EdDSA' as const };
  const { app, serverURL } = await startProvider(t, {}, { clients: [rp, SPA] });
  const { tokens } = await rpSignIn(await relyingParty(serverURL, rp), serverURL);
  const res = await fetch(`${app.url}/private`, { headers: { 'X-JWT': tokens.id_token! } });
  t.is(res.status, 401);
  t.deepEqual(await res.json(), { error: 'wrong issuer', code: 'token_invalid' });
  const jwks = `${app.url}/auth/.well-known/jwks.json`;
  await t.throwsAsync(verifier({ jwks }).verify(tokens.id_token!), { message: 'wrong issuer' });
  // Even a resource server told to trust the server's issuer finds no user in it.
  await t.throwsAsync(verifier({ jwks, issuer: serverURL }).verify(tokens.id_token!), {
    message: 'not a session token',
  });
});

test('the app signs in through its own server as before while the server is an OpenID provider (the callback carries iss)', async (t) => {
  const { app, serverURL } = await startProvider(t);
  const c = new Client(app.url);
  const start = await c.fetch('/auth/server/login?from=/private');
  const callback = await signIn(new Client(serverURL), start.headers.get('location')!, 'alice', 'wonderland');
  t.is(callback.searchParams.get('iss'), serverURL);
  t.is((await c.fetch(callback.pathname + callback.search)).status, 303);
  t.is(decodeProtectedHeader(c.jar.get('JWT')!).alg, 'EdDSA', 'the session is signed with the service key');
  t.is(
    ((await (await c.fetch('/private', { headers: c.xsrf() })).json()) as { user: { id: string } }).user.id,
    'alice',
  );
});
