import test from 'ava';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { createAuthClient } from '../../browser/client.js';
import { PASSWORD, signUpAndConfirm } from '../accounts/rig.js';
import { Client } from '../helpers/http.js';
import { authorizationURL, insecure, OTHER_RESOURCE, REDIRECT, RESOURCE, serverRig, userAnswers } from './app-rig.js';

const agent: oauth.Client = { client_id: 'agent' };

test('metadata at the site root (RFC 8414) names every endpoint, S256 only, the iss parameter and metadata documents', async (t) => {
  const r = await serverRig(t);
  t.is(r.as.issuer, r.app.url);
  t.is(r.as.authorization_endpoint, `${r.app.url}/auth/oauth2/authorize`);
  t.is(r.as.token_endpoint, `${r.app.url}/auth/oauth2/token`);
  t.is(r.as.jwks_uri, `${r.app.url}/auth/.well-known/jwks.json`);
  t.deepEqual(r.as.code_challenge_methods_supported, ['S256']);
  t.true(r.as.authorization_response_iss_parameter_supported);
  t.true((r.as.scopes_supported ?? []).includes('notes:read'));
  const openid = await fetch(`${r.app.url}/.well-known/openid-configuration`);
  t.is(openid.status, 200);
  t.is(((await openid.json()) as { issuer: string }).issuer, r.app.url);
  // Another document under .well-known is the application's.
  t.is((await fetch(`${r.app.url}/.well-known/security.txt`)).status, 404);
});

test("oauth4webapi: the code flow through the app's password login and consent gives a JWT for the resource, refreshed with rotation", async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { url, state, verifier } = await authorizationURL(r.as, {
    client_id: 'agent',
    scope: 'notes:read',
    resource: RESOURCE,
  });
  const back = await userAnswers(r.client, url);
  t.true(back.href.startsWith(REDIRECT));
  t.is(back.searchParams.get('iss'), r.app.url);
  const params = oauth.validateAuthResponse(r.as, agent, back, state);
  const res = await oauth.authorizationCodeGrantRequest(
    r.as,
    agent,
    oauth.None(),
    params,
    REDIRECT,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(r.as, agent, res);
  t.is(tokens.token_type, 'bearer');
  t.is(tokens.scope, 'notes:read');
  t.truthy(tokens.refresh_token, 'a client of the options gets a refresh token');

  t.is(decodeProtectedHeader(tokens.access_token).typ, 'at+jwt');
  const keys = createRemoteJWKSet(new URL(r.as.jwks_uri!));
  const { payload } = await jwtVerify(tokens.access_token, keys, {
    issuer: r.app.url,
    audience: RESOURCE,
    typ: 'at+jwt',
    currentDate: new Date(r.clock()),
  });
  t.is(payload.client_id, 'agent');
  t.is(payload.scope, 'notes:read');
  t.regex(String(payload.sub), /acct_/);

  const refreshed = await oauth.processRefreshTokenResponse(
    r.as,
    agent,
    await oauth.refreshTokenGrantRequest(r.as, agent, oauth.None(), tokens.refresh_token!, insecure),
  );
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated');
  // The spent one again: refused, and the family with it (the new one too).
  const reused = await oauth.refreshTokenGrantRequest(r.as, agent, oauth.None(), tokens.refresh_token!, insecure);
  await t.throwsAsync(oauth.processRefreshTokenResponse(r.as, agent, reused), {
    message: /invalid_grant|server responded/,
  });
  const after = await oauth.refreshTokenGrantRequest(r.as, agent, oauth.None(), refreshed.refresh_token!, insecure);
  t.is(after.status, 400, 'the rotated token went with its family');
});

test('a browser without a session is sent to the login page with the request as `from`; prompt=none answers login_required', async (t) => {
  const r = await serverRig(t, { loginPage: '/signin' });
  const { url } = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE });
  const stranger = new Client(r.app.url);
  const res = await stranger.fetch(url.href);
  t.is(res.status, 302);
  const to = new URL(res.headers.get('location')!);
  t.is(to.pathname, '/signin');
  t.is(to.searchParams.get('from'), url.href);
  url.searchParams.set('prompt', 'none');
  const none = await stranger.fetch(url.href);
  const answer = new URL(none.headers.get('location')!);
  t.is(answer.searchParams.get('error'), 'login_required');
  t.is(answer.searchParams.get('iss'), r.app.url);
});

test('an unknown client or redirect URI is shown, never redirected; a bad resource or scope goes back as invalid_target / invalid_scope', async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const unknown = await authorizationURL(r.as, { client_id: 'nobody', resource: RESOURCE });
  const shown = await r.client.fetch(unknown.url.href);
  t.is(shown.status, 400);
  t.is(((await shown.json()) as { error: string }).error, 'invalid_client');
  const elsewhere = await authorizationURL(r.as, { client_id: 'agent', redirect_uri: 'https://evil.example/cb' });
  const refused = await r.client.fetch(elsewhere.url.href);
  t.is(refused.status, 400);
  t.is(refused.headers.get('location'), null);
  const target = await authorizationURL(r.as, { client_id: 'agent', resource: 'https://unknown.example/' });
  t.is((await userAnswers(r.client, target.url)).searchParams.get('error'), 'invalid_target');
  const scope = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE, scope: 'other:read' });
  t.is((await userAnswers(r.client, scope.url)).searchParams.get('error'), 'invalid_scope');
  const plain = await authorizationURL(r.as, { client_id: 'agent', code_challenge_method: 'plain' });
  t.is((await userAnswers(r.client, plain.url)).searchParams.get('error'), 'invalid_request');
});

test('consent: Deny answers access_denied; Allow is remembered, and asked again for more; a trusted client is never asked', async (t) => {
  const r = await serverRig(t, {
    clients: [
      { id: 'agent', name: 'Agent', redirectURIs: [REDIRECT] },
      { id: 'first-party', redirectURIs: [REDIRECT], trusted: true },
    ],
  });
  await signUpAndConfirm(r, 'ann@example.com');
  const ask = (params: Record<string, string>) => authorizationURL(r.as, { client_id: 'agent', ...params });
  const denied = await userAnswers(r.client, (await ask({ resource: RESOURCE, scope: 'notes:read' })).url, 'deny');
  t.is(denied.searchParams.get('error'), 'access_denied');
  await userAnswers(r.client, (await ask({ resource: RESOURCE, scope: 'notes:read' })).url, 'allow');
  // Asked again for what was allowed: straight back with a code.
  const again = await r.client.fetch((await ask({ resource: RESOURCE, scope: 'notes:read' })).url.href);
  t.is(again.status, 302);
  t.truthy(new URL(again.headers.get('location')!).searchParams.get('code'));
  // More than was allowed: the page again.
  const more = await r.client.fetch((await ask({ resource: RESOURCE, scope: 'notes:read notes:write' })).url.href);
  t.is(more.status, 200);
  t.regex(await more.text(), /notes:write/);
  const trusted = await authorizationURL(r.as, { client_id: 'first-party', resource: RESOURCE });
  const straight = await r.client.fetch(trusted.url.href);
  t.is(straight.status, 302);
});

test('the consent page is not framable nor cached, and its form needs the token of the page the user saw', async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { url } = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE });
  const page = await r.client.fetch(url.href);
  t.is(page.headers.get('x-frame-options'), 'DENY');
  t.regex(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.is(page.headers.get('cache-control'), 'no-store');
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  const forged = await r.client.fetch('/auth/oauth2/consent', {
    method: 'POST',
    form: { request, token: 'guessed', decision: 'allow' },
  });
  t.is(forged.status, 400);
  // From another site: refused before the form is read.
  const crossSite = await r.client.fetch('/auth/oauth2/consent', {
    method: 'POST',
    headers: { origin: 'https://evil.example' },
    form: { request, token: 'x', decision: 'allow' },
  });
  t.is(crossSite.status, 403);
});

test('openid-client style client_credentials: a confidential client gets a token for itself (sub = its id); a public one may not', async (t) => {
  const r = await serverRig(t, {
    clients: [
      { id: 'agent', redirectURIs: [REDIRECT] },
      { id: 'worker', secret: 'worker-secret-0123456789abcdef', redirectURIs: [], grantTypes: ['client_credentials'] },
    ],
  });
  const worker: oauth.Client = { client_id: 'worker' };
  const res = await oauth.clientCredentialsGrantRequest(
    r.as,
    worker,
    oauth.ClientSecretBasic('worker-secret-0123456789abcdef'),
    { resource: OTHER_RESOURCE, scope: 'other:read' },
    insecure,
  );
  const tokens = await oauth.processClientCredentialsResponse(r.as, worker, res);
  const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(r.as.jwks_uri!)), {
    audience: OTHER_RESOURCE,
    currentDate: new Date(r.clock()),
  });
  t.is(payload.sub, 'worker');
  t.is(tokens.refresh_token, undefined);
  const wrong = await oauth.clientCredentialsGrantRequest(r.as, worker, oauth.ClientSecretBasic('wrong'), {}, insecure);
  t.is(wrong.status, 401);
  const publicOne = await oauth.clientCredentialsGrantRequest(r.as, agent, oauth.None(), {}, insecure);
  t.is(publicOne.status, 400);
});

test('a code is spent once: presented again it is refused and the tokens it gave are revoked', async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { url, state, verifier } = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE });
  const params = oauth.validateAuthResponse(r.as, agent, await userAnswers(r.client, url), state);
  const first = await oauth.processAuthorizationCodeResponse(
    r.as,
    agent,
    await oauth.authorizationCodeGrantRequest(r.as, agent, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  const replay = await oauth.authorizationCodeGrantRequest(
    r.as,
    agent,
    oauth.None(),
    params,
    REDIRECT,
    verifier,
    insecure,
  );
  t.is(replay.status, 400);
  const refresh = await oauth.refreshTokenGrantRequest(r.as, agent, oauth.None(), first.refresh_token!, insecure);
  t.is(refresh.status, 400, 'the family of the replayed code is revoked');
});

test('a session JWT is not an access token and an access token is not a session', async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { url, state, verifier } = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE });
  const params = oauth.validateAuthResponse(r.as, agent, await userAnswers(r.client, url), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    r.as,
    agent,
    await oauth.authorizationCodeGrantRequest(r.as, agent, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  const asSession = await fetch(`${r.app.url}/auth/user`, { headers: { 'X-JWT': tokens.access_token } });
  t.is(asSession.status, 401);
  const session = r.client.jar.get('JWT')!;
  await t.throwsAsync(
    jwtVerify(session, createRemoteJWKSet(new URL(r.as.jwks_uri!)), {
      typ: 'at+jwt',
      currentDate: new Date(r.clock()),
    }),
  );
});

test('connected apps: authkoa/client lists the app the user allowed and disconnects it; its refresh token is then refused', async (t) => {
  const r = await serverRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { url, state, verifier } = await authorizationURL(r.as, { client_id: 'agent', resource: RESOURCE });
  const params = oauth.validateAuthResponse(r.as, agent, await userAnswers(r.client, url), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    r.as,
    agent,
    await oauth.authorizationCodeGrantRequest(r.as, agent, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  const auth = createAuthClient({ baseURL: r.app.url });
  t.like(await auth.login('local', { user: 'ann@example.com', passwd: PASSWORD }), { state: 'logged_in' });
  const apps = await auth.grants.list();
  t.is(apps.length, 1);
  t.like(apps[0], { clientId: 'agent', clientName: 'Agent', resources: [RESOURCE] });
  await auth.grants.revoke('agent');
  t.deepEqual(await auth.grants.list(), []);
  const refused = await oauth.refreshTokenGrantRequest(r.as, agent, oauth.None(), tokens.refresh_token!, insecure);
  t.is(refused.status, 400);
  await t.throwsAsync(auth.grants.revoke('agent'), { message: /no such grant/ });
  // Without the XSRF header (another site's page): refused.
  t.is((await r.client.fetch('/auth/oauth2/grants')).status, 401);
});
