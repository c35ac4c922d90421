import test from 'ava';
import { sha1 } from '../../lib/user.js';
import { Client, decodeJwt, startApp } from '../helpers/http.js';
import { startOidcServer } from '../helpers/oidc.js';
import { options, startLogin } from './fixtures.js';

const client = (app: { url: string }, name: string, extra: Record<string, unknown> = {}) => ({
  client_id: `${name}-client`,
  client_secret: `${name}-secret`,
  redirect_uris: [`${app.url}/auth/${name}/callback`],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...extra,
});

async function setup(
  t: any,
  providers: (issuer: string) => unknown[],
  clients: (app: { url: string }) => any[],
  pkceRequired = true,
) {
  const idp = await startOidcServer();
  t.teardown(() => idp.close());
  const app = await startApp(options(providers(idp.issuer)));
  t.teardown(() => app.close());
  idp.setup(clients(app), { pkceRequired });
  return { idp, app, c: new Client(app.url) };
}

test("kind 'oidc' against oidc-provider: discovery, verified id_token with nonce, userinfo claims → JWT cookie", async (t) => {
  const { idp, app, c } = await setup(
    t,
    (issuer) => [
      {
        kind: 'oidc',
        name: 'corp',
        issuer,
        cid: 'corp-client',
        csecret: 'corp-secret',
        scopes: ['openid', 'profile', 'email'],
      },
    ],
    (a) => [client(a, 'corp')],
  );
  const authorize = await startLogin(c, 'corp', 'from=/after');
  t.is(authorize.origin, idp.issuer);
  t.truthy(authorize.searchParams.get('nonce'));
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.is(authorize.searchParams.get('scope'), 'openid profile email');
  const res = await c.fetch(await idp.authorize(authorize, 'alice'));
  t.is(res.status, 303);
  t.is(res.headers.get('location'), `${app.url}/after`);
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.deepEqual(claims.user, {
    name: 'Alice Example',
    id: `corp_${sha1('alice')}`,
    picture: 'https://img.example.test/alice.png',
    email: 'alice@example.test',
  });
  t.deepEqual(claims.auth_provider, { name: 'corp' });
  const me = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(((await me.json()) as { name: string }).name, 'Alice Example');
});

test("kind 'oauth2' against oidc-provider with PKCE required: custom endpoints and mapUser", async (t) => {
  const { idp, c } = await setup(
    t,
    (issuer) => [
      {
        kind: 'oauth2',
        name: 'corp2',
        client: { cid: 'corp2-client', csecret: 'corp2-secret' },
        endpoint: { authURL: `${issuer}/auth`, tokenURL: `${issuer}/token` },
        infoURL: `${issuer}/me`,
        scopes: ['openid', 'profile'],
        mapUser: (d: Record<string, string>) => ({ id: d.sub!, name: d.name!, picture: d.picture! }),
      },
    ],
    (a) => [client(a, 'corp2')],
  );
  const authorize = await startLogin(c, 'corp2');
  const res = await c.fetch(await idp.authorize(authorize, 'bob'));
  t.is(res.status, 200);
  t.deepEqual(await res.json(), {
    name: 'Bob Example',
    id: `corp2_${sha1('bob')}`,
    picture: 'https://img.example.test/bob.png',
  });
  t.truthy(c.jar.get('JWT'));
});

test('two clients of one server side by side under different names, client_secret_post for one', async (t) => {
  const { idp, c } = await setup(
    t,
    (issuer) => [
      { kind: 'oidc', name: 'one', issuer, cid: 'one-client', csecret: 'one-secret' },
      { kind: 'oidc', name: 'two', issuer, cid: 'two-client', csecret: 'two-secret', authMethod: 'body' },
    ],
    (a) => [client(a, 'one'), client(a, 'two', { token_endpoint_auth_method: 'client_secret_post' })],
  );
  const r1 = await c.fetch(await idp.authorize(await startLogin(c, 'one'), 'carol'));
  t.is(((await r1.json()) as { id: string }).id, `one_${sha1('carol')}`);
  const d = new Client(c.base);
  const r2 = await d.fetch(await idp.authorize(await startLogin(d, 'two'), 'carol'));
  t.is(((await r2.json()) as { id: string }).id, `two_${sha1('carol')}`);
});

test('PKCE off against a server that requires it: the ?error= callback is a 502 naming the provider, no session', async (t) => {
  const { idp, c } = await setup(
    t,
    (issuer) => [
      {
        kind: 'oauth2',
        name: 'nopkce',
        client: { cid: 'nopkce-client', csecret: 'nopkce-secret' },
        endpoint: { authURL: `${issuer}/auth`, tokenURL: `${issuer}/token` },
        infoURL: `${issuer}/me`,
        scopes: ['openid'],
        pkce: false,
        mapUser: (d: Record<string, string>) => ({ id: d.sub! }),
      },
    ],
    (a) => [client(a, 'nopkce')],
  );
  const authorize = await startLogin(c, 'nopkce');
  t.is(authorize.searchParams.get('code_challenge'), null);
  const callback = await idp.authorize(authorize, 'dave');
  t.is(new URL(callback).searchParams.get('error'), 'invalid_request');
  const res = await c.fetch(callback);
  t.is(res.status, 502);
  t.deepEqual(await res.json(), {
    error: 'nopkce: provider refused the login (invalid_request)',
    code: 'provider_error',
  });
  t.false(c.jar.has('JWT'));
});
