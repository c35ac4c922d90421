/**
 * `protectedResource()` of `authkoa/verify` (issue #62): an API of the app's authorization server, over real HTTP on
 * 127.0.0.1 against an authorization server here (fixtures/access-tokens.ts: its RFC 8414 metadata and key set) and
 * access tokens jose mints as RFC 9068 has them. Its RFC 9728 metadata (read by oauth4webapi's discovery), the 401
 * and 403 challenges (parsed by oauth4webapi), ctx.state.auth, every refusal, a token for another resource and a
 * session token refused, the metadata's discovery and its outage, a revocation from a real app through `events`, and
 * the options' errors.
 */
import { createHmac } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import * as oauth from 'oauth4webapi';
import type { SsfAdmin } from '../../lib/index.js';
import { protectedResource, type ProtectedResourceOptions } from '../../lib/verify/index.js';
import { manualClock, serve } from '../helpers/http.js';
import { tamperedSignature } from '../helpers/tamper.js';
import { startSsfApp } from '../ssf/fixtures.js';
import { loginToken, startSignedApp, signingWith } from './fixtures.js';
import { accessToken, authorizationServer, protectedApi, type Answer } from './fixtures/access-tokens.js';
import { forge, keyOf } from './fixtures/jwks.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** An authorization server with one key, and an API `/mcp` protected for it on `clock`. */
async function rig(t: ExecutionContext) {
  const clock = manualClock();
  const key = await keyOf();
  const as = await authorizationServer(t, [key.jwk]);
  const api = await protectedApi(t, (resource) => ({
    resource,
    authorizationServers: [as.issuer],
    scopes: ['mcp:read', 'mcp:write'],
    resourceName: 'Tools',
    clock,
  }));
  const mint = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    accessToken(key, { iss: as.issuer, aud: api.resource, ...claims }, clock(), header);
  return { clock, key, as, api, mint };
}

/** The challenges of an answer, parsed by oauth4webapi as a client parses them (undefined: none). */
async function challengesOf(url: string, token: string | undefined) {
  const options = {
    [oauth.allowInsecureRequests]: true,
    // oauth4webapi always sends its token: for a request without one, the header is taken off on the way.
    [oauth.customFetch]: (
      input: string,
      init: oauth.CustomFetchOptions<string, oauth.ProtectedResourceRequestBody>,
    ) => {
      const headers = new Headers(init.headers);
      if (token === undefined) headers.delete('authorization');
      return fetch(input, { ...init, headers } as RequestInit);
    },
  };
  try {
    await oauth.protectedResourceRequest(token ?? 'none', 'GET', new URL(url), undefined, undefined, options);
    return undefined;
  } catch (err) {
    if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw err;
    return { status: err.status, challenges: err.cause };
  }
}

/** The claims of `token` under an HS256 header, the HMAC keyed with `secret` (a public key, for the confusion). */
function hs256(token: string, secret: string): string {
  const [header, payload] = token.split('.') as [string, string];
  const kid = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string }).kid;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as object;
  return forge({ alg: 'HS256', kid, typ: 'at+jwt' }, claims, (i) => createHmac('sha256', secret).update(i).digest());
}

/** `status code`, e.g. `401 token_expired`, or `200` when the route ran. */
const outcome = (a: Answer) => (a.status === 200 ? '200' : `${a.status} ${a.body.code}`);

test('the metadata (RFC 9728) of a resource with a path is served at /.well-known/oauth-protected-resource/mcp, open to every origin, and oauth4webapi discovers it from the resource identifier', async (t) => {
  const { as, api } = await rig(t);
  const res = await api.get(`${WELL_KNOWN}/mcp`, undefined, { origin: 'https://agent.example' });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(res.headers.get('access-control-allow-origin'), '*');
  t.deepEqual(res.body, {
    resource: api.resource,
    authorization_servers: [as.issuer],
    scopes_supported: ['mcp:read', 'mcp:write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Tools',
  });
  t.is(api.pr.metadataUrl, `${api.url}${WELL_KNOWN}/mcp`);
  t.deepEqual(api.pr.metadata, res.body);
  const discovered = await oauth.processResourceDiscoveryResponse(
    new URL(api.resource),
    await oauth.resourceDiscoveryRequest(new URL(api.resource), { [oauth.allowInsecureRequests]: true }),
  );
  t.deepEqual(discovered.authorization_servers, [as.issuer]);
  t.is((await api.get(WELL_KNOWN)).status, 401, 'the root document is not this resource’s: a request like any');
  const post = await fetch(`${api.url}${WELL_KNOWN}/mcp`, { method: 'POST' });
  t.is(post.status, 405);
  t.is(api.reached, 0);
  t.is(as.fetched.length, 0, 'serving the metadata fetches nothing');
});

test('a resource at the root has its metadata at /.well-known/oauth-protected-resource', async (t) => {
  const as = await authorizationServer(t, [(await keyOf()).jwk]);
  const api = await protectedApi(t, (resource) => ({ resource, authorizationServers: [as.issuer] }), '');
  t.is(api.pr.metadataUrl, `${api.url}${WELL_KNOWN}`);
  const res = await api.get(WELL_KNOWN);
  t.deepEqual(res.body, {
    resource: api.resource,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
  });
});

test('no token: 401 no_token, WWW-Authenticate Bearer resource_metadata="<metadata URL>" and no error, as oauth4webapi parses it; a token in the query or a cookie is not taken', async (t) => {
  const { api, mint } = await rig(t);
  const token = await mint();
  const metadata = `${api.url}${WELL_KNOWN}/mcp`;
  const asks: Array<[string, Record<string, string>]> = [
    ['/mcp/whoami', {}],
    ['/mcp/whoami', { authorization: 'Basic YWxpY2U6cHc=' }],
    ['/mcp/whoami', { authorization: 'Bearer ' }],
    [`/mcp/whoami?access_token=${token}`, {}],
    ['/mcp/whoami', { cookie: `access_token=${token}; JWT=${token}` }],
    ['/mcp/whoami', { 'x-jwt': token }],
    ['/elsewhere', {}],
  ];
  for (const [path, headers] of asks) {
    const res = await api.get(path, undefined, headers);
    t.is(outcome(res), '401 no_token', path);
    t.is(res.headers.get('www-authenticate'), `Bearer resource_metadata="${metadata}"`);
    t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  }
  t.deepEqual(await challengesOf(`${api.url}/mcp/whoami`, undefined), {
    status: 401,
    challenges: [{ scheme: 'bearer', parameters: { resource_metadata: metadata } }],
  });
  t.is(api.reached, 0);
});

test('a valid access token: ctx.state.auth is { method: "oauth", sub, clientId, scopes }; aud a list holding the resource, typ in any case or application/at+jwt; .verify() gives the same', async (t) => {
  const { api, mint, as } = await rig(t);
  const res = await api.whoami(await mint({ scope: 'mcp:read  mcp:write' }));
  t.is(res.status, 200);
  t.deepEqual(res.body.auth, {
    method: 'oauth',
    sub: 'direct_alice',
    clientId: 'agent',
    scopes: ['mcp:read', 'mcp:write'],
  });
  const client = await api.whoami(await mint({ sub: 'agent', scope: undefined, sid: undefined }));
  t.deepEqual(client.body.auth, { method: 'oauth', sub: 'agent', clientId: 'agent', scopes: [] }, 'client credentials');
  t.is(outcome(await api.whoami(await mint({ aud: ['https://other.example', api.resource] }))), '200');
  t.is(outcome(await api.whoami(await mint({}, { typ: 'AT+JWT' }))), '200');
  t.is(outcome(await api.whoami(await mint({}, { typ: 'application/at+jwt' }))), '200');
  t.deepEqual(await api.pr.verify(await mint()), {
    method: 'oauth',
    sub: 'direct_alice',
    clientId: 'agent',
    scopes: ['mcp:read'],
  });
  t.is(api.reached, 5);
  t.deepEqual(as.fetched, ['/.well-known/oauth-authorization-server', '/jwks.json'], 'discovered once, fetched once');
});

test('refused with 401 error="invalid_token": a bad signature, expired, not valid yet, another issuer, a wrong alg or typ, a claim RFC 9068 requires missing', async (t) => {
  const { api, mint, clock, key, as } = await rig(t);
  const other = await keyOf();
  const now = Math.floor(clock() / 1000);
  const cases: Array<[string, Promise<string> | string, string]> = [
    ['a bad signature', mint().then(tamperedSignature), '401 token_invalid'],
    [
      'signed by a key the server does not have',
      accessToken(other, { iss: as.issuer, aud: api.resource }),
      '401 token_invalid',
    ],
    ['another issuer', mint({ iss: 'https://evil.example' }), '401 token_invalid'],
    ['no typ', mint({}, { typ: undefined }), '401 token_invalid'],
    ['typ JWT', mint({}, { typ: 'JWT' }), '401 token_invalid'],
    ['HS256 with the public key as secret', hs256(await mint(), key.publicPem), '401 token_invalid'],
    ['no exp', mint({ exp: undefined }), '401 token_invalid'],
    ['no iat', mint({ iat: undefined }), '401 token_invalid'],
    ['no jti', mint({ jti: undefined }), '401 token_invalid'],
    ['no client_id', mint({ client_id: undefined }), '401 token_invalid'],
    ['no sub', mint({ sub: undefined }), '401 token_invalid'],
    ['a scope that is no string', mint({ scope: ['mcp:read'] }), '401 token_invalid'],
    ['an empty sid', mint({ sid: '' }), '401 token_invalid'],
    ['expired', mint({ exp: now }), '401 token_expired'],
    ['not valid yet', mint({ nbf: now + 30 }), '401 token_not_valid_yet'],
    ['no aud', mint({ aud: undefined }), '401 aud_rejected'],
    ['garbage', 'garbage', '401 token_invalid'],
  ];
  const metadata = `${api.url}${WELL_KNOWN}/mcp`;
  for (const [what, token, expected] of cases) {
    const res = await api.whoami(await token);
    t.is(outcome(res), expected, what);
    t.is(res.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${metadata}"`, what);
  }
  const expiring = await mint();
  clock.advance(300_000);
  t.is(outcome(await api.whoami(expiring)), '401 token_expired', 'once the clock passes exp');
  t.deepEqual(await challengesOf(`${api.url}/mcp/whoami`, expiring), {
    status: 401,
    challenges: [{ scheme: 'bearer', parameters: { error: 'invalid_token', resource_metadata: metadata } }],
  });
  t.is(api.reached, 0);
});

test('a token for resource A is refused at resource B (401 invalid_token, aud_rejected), though both trust the same authorization server', async (t) => {
  const { api: a, mint, as, clock } = await rig(t);
  const b = await protectedApi(t, (resource) => ({ resource, authorizationServers: [as.issuer], clock }), '/billing');
  const forA = await mint();
  t.is(outcome(await a.whoami(forA)), '200');
  const atB = await b.whoami(forA);
  t.is(outcome(atB), '401 aud_rejected');
  t.is(
    atB.headers.get('www-authenticate'),
    `Bearer error="invalid_token", resource_metadata="${b.url}${WELL_KNOWN}/billing"`,
  );
  t.is(outcome(await b.whoami(await mint({ aud: b.resource }))), '200', 'the control: a token for B passes at B');
  t.is(b.reached, 1);
});

test('a session JWT is refused by protectedResource() (401 invalid_token): an authkoa app’s own session token, signed by the key the resource trusts, and one minted in its shape with at+jwt claims', async (t) => {
  const key = await keyOf();
  const app = await startSignedApp(t, signingWith(key), { issuer: 'https://app.example' });
  const session = await loginToken(app);
  const api = await protectedApi(t, (resource) => ({
    resource,
    authorizationServers: ['https://app.example'],
    jwks: `${app.url}/auth/.well-known/jwks.json`,
    clock: app.clock,
  }));
  const res = await api.whoami(session);
  t.is(outcome(res), '401 token_invalid');
  t.regex(res.headers.get('www-authenticate')!, /^Bearer error="invalid_token", resource_metadata="/);
  const shaped = await accessToken(
    key,
    { iss: 'https://app.example', aud: api.resource, user: { id: 'direct_alice', name: 'alice', picture: '' } },
    app.clock(),
    { typ: 'JWT' },
  );
  t.is(outcome(await api.whoami(shaped)), '401 token_invalid');
  const control = await accessToken(key, { iss: 'https://app.example', aud: api.resource }, app.clock());
  t.is(outcome(await api.whoami(control)), '200', 'the control: an access token by the same key passes');
});

test('.scope(): without the scope, 403 insufficient_scope with scope="<needed>" so a client can step up (oauth4webapi parses it); with it the route runs; on a route alone it checks the token itself', async (t) => {
  const { api, mint } = await rig(t);
  const res = await api.get('/mcp/tools', await mint({ scope: 'mcp:read' }));
  t.is(outcome(res), '403 insufficient_scope');
  const metadata = `${api.url}${WELL_KNOWN}/mcp`;
  t.is(
    res.headers.get('www-authenticate'),
    `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="${metadata}"`,
  );
  t.deepEqual(await challengesOf(`${api.url}/mcp/tools`, await mint({ scope: 'mcp:read' })), {
    status: 403,
    challenges: [
      {
        scheme: 'bearer',
        parameters: { error: 'insufficient_scope', scope: 'mcp:write', resource_metadata: metadata },
      },
    ],
  });
  t.is(outcome(await api.get('/mcp/tools', await mint({ scope: 'mcp:read mcp:write' }))), '200');
  t.is(outcome(await api.get('/mcp/tools', await mint({ scope: undefined }))), '403 insufficient_scope');
  t.is(api.reached, 1);

  // Alone on a route, behind a middleware that forged ctx.state.auth: that grants nothing, the token is checked.
  const alone = new Koa();
  alone.use((ctx, next) => {
    ctx.state.auth = { method: 'oauth', scopes: ['mcp:read', 'mcp:write'] };
    return next();
  });
  alone.use(api.pr.scope('mcp:read', 'mcp:write'));
  alone.use((ctx) => (ctx.body = { auth: ctx.state.auth }));
  const served = await serve(alone.callback());
  t.teardown(() => served.close());
  const forged = await fetch(`${served.url}/tools`);
  t.is(forged.status, 401);
  t.is(forged.headers.get('www-authenticate'), `Bearer resource_metadata="${metadata}"`);
  const real = await fetch(`${served.url}/tools`, {
    headers: { authorization: `Bearer ${await mint({ scope: 'mcp:read mcp:write' })}` },
  });
  t.like(await real.json(), { auth: { sub: 'direct_alice', scopes: ['mcp:read', 'mcp:write'] } });
  const short = await fetch(`${served.url}/tools`, { headers: { authorization: `Bearer ${await mint()}` } });
  t.is(short.status, 403);
  t.regex(short.headers.get('www-authenticate')!, /scope="mcp:read mcp:write"/);
  t.throws(() => api.pr.scope('mcp:admin'), { instanceOf: TypeError, message: /mcp:admin not in the scopes option/ });
  t.throws(() => api.pr.scope(), { instanceOf: TypeError, message: /requires scope names/ });
  t.throws(() => api.pr.scope('a b'), { instanceOf: TypeError, message: /requires scope names/ });
  t.throws(() => api.pr.scope('a"b'), { instanceOf: TypeError, message: /requires scope names/ });
});

test('discovery: the RFC 8414 document names the key set; a server with only OpenID Connect’s document is found there; a document naming another issuer is refused (503 keys_unavailable)', async (t) => {
  const key = await keyOf();
  const clock = manualClock();
  const jwksElsewhere = await authorizationServer(t, [key.jwk]);
  const openid = await authorizationServer(t, [key.jwk]);
  openid.mode = 'openid only';
  openid.jwksUri = `${jwksElsewhere.issuer}/jwks.json`;
  const liar = await authorizationServer(t, [key.jwk]);
  liar.mode = 'another issuer';
  const api = await protectedApi(t, (resource) => ({
    resource,
    authorizationServers: [openid.issuer, liar.issuer],
    clock,
  }));
  const mint = (iss: string) => accessToken(key, { iss, aud: api.resource }, clock());
  t.is(outcome(await api.whoami(await mint(openid.issuer))), '200');
  t.deepEqual(openid.fetched, ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  t.deepEqual(jwksElsewhere.fetched, ['/jwks.json'], 'the key set where the document says');
  const lied = await api.whoami(await mint(liar.issuer));
  t.is(outcome(lied), '503 keys_unavailable');
  t.regex(lied.body.error, /names another issuer/);
  t.is(lied.headers.get('www-authenticate'), null, 'no challenge: the token is not at fault');
  t.deepEqual(liar.fetched, ['/.well-known/oauth-authorization-server'], 'its keys never fetched');
});

test('the authorization server’s metadata failing: 503 keys_unavailable JSON and never a 2xx; not asked again within the cooldown; once it answers, tokens pass after the cooldown', async (t) => {
  const { api, as, mint, clock } = await rig(t);
  as.mode = 'status 503';
  const token = await mint();
  const res = await api.whoami(token);
  t.is(outcome(res), '503 keys_unavailable');
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.regex(res.body.error, /metadata could not be fetched/);
  t.is(as.fetched.length, 2, 'both well-known paths asked once');
  as.mode = 'rfc8414';
  clock.advance(29_999);
  t.is(outcome(await api.whoami(token)), '503 keys_unavailable');
  t.is(as.fetched.length, 2, 'not asked within the cooldown');
  clock.advance(1);
  t.is(outcome(await api.whoami(token)), '200');
  t.is(api.reached, 1);

  // Held: an outage later keeps the document and keys held, past maxAge too.
  as.mode = 'status 503';
  clock.advance(10 * 60_000);
  t.is(outcome(await api.whoami(await mint())), '200', 'the held document and keys stay in use');
});

test('a revocation through events: the app ends the session whose sid the access token carries, its SET is polled, and the token is refused (401 invalid_token, session_revoked); a token of another sid passes', async (t) => {
  const key = await keyOf();
  const credential = 'mcp-receiver-credential-0123456789abcdef';
  const app = await startSsfApp(t, [{ id: 'mcp', credential, poll: true }], { signing: signingWith(key) });
  const api = await protectedApi(t, (resource) => ({
    resource,
    authorizationServers: [app.url],
    jwks: `${app.url}/auth/.well-known/jwks.json`,
    clock: app.clock,
    events: { poll: `${app.url}/auth/ssf/poll`, credential, audience: 'mcp', interval: '1h' },
  }));
  const signals: string[] = [];
  api.pr.on('signal', (e) => signals.push(`${e.event} ${e.sid}`));
  const [a, b] = [await app.login('alice'), await app.login('alice')];
  const mint = (sid: string) => accessToken(key, { iss: app.url, aud: api.resource, sid, sub: a.userId }, app.clock());
  const [tokenA, tokenB] = [await mint(a.sid), await mint(b.sid)];
  t.is(outcome(await api.whoami(tokenB)), '200');
  const ended = await a.c.fetch(`/auth/sessions/${b.sid}`, { method: 'DELETE', headers: a.c.xsrf() });
  t.is(ended.status, 204);
  // Once the app has kept the SET for its receiver, a poll now rather than in an hour.
  const polled = async () => {
    await (app.auth.features.get('ssf') as SsfAdmin).flushed();
    await api.pr.events!.poll();
  };
  await polled();
  const refused = await api.whoami(tokenB);
  t.is(outcome(refused), '401 session_revoked');
  t.regex(refused.headers.get('www-authenticate')!, /^Bearer error="invalid_token", /);
  t.deepEqual(signals, [`session-revoked ${b.sid}`]);
  t.is(api.pr.events!.revoked, 1);
  t.is(outcome(await api.whoami(tokenA)), '200', 'the session that ended the other');

  // "Everyone else": the user's tokens issued before are refused but the kept session's.
  const grant = await mint('grant-7');
  // A client's own token (client credentials: sub is the client) is no user's, even a client named as the user is.
  const own = { sub: a.userId, client_id: a.userId, sid: undefined };
  const client = await accessToken(key, { iss: app.url, aud: api.resource, ...own }, app.clock());
  app.clock.advance(1000);
  const others = await a.c.fetch('/auth/sessions/revoke-others', { method: 'POST', headers: a.c.xsrf() });
  t.is(others.status, 200);
  await polled();
  t.is(outcome(await api.whoami(grant)), '401 session_revoked', "a grant of the user's, from before");
  t.is(outcome(await api.whoami(tokenA)), '200', 'the session kept');
  t.is(outcome(await api.whoami(client)), '200', 'client credentials');
  app.clock.advance(1000);
  t.is(outcome(await api.whoami(await mint('grant-7'))), '200', 'a token issued after it');
  t.deepEqual(signals, [`session-revoked ${b.sid}`, 'session-revoked undefined']);
});

test('bad options: a TypeError naming the option', (t) => {
  const ok = { resource: 'https://api.example/mcp', authorizationServers: ['https://app.example'] };
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /options object/],
    [{}, /resource must be an http\(s\) URL/],
    [{ ...ok, resource: 'api' }, /resource must be an http\(s\) URL/],
    [{ ...ok, resource: 'ftp://api.example/mcp' }, /resource must be/],
    [{ ...ok, resource: 'https://api.example/mcp#x' }, /resource must be .* no query or fragment/],
    [{ ...ok, resource: 'https://api.example/mcp?v=1' }, /resource must be/],
    [{ ...ok, authorizationServers: 'https://app.example' }, /authorizationServers must be a list/],
    [{ ...ok, authorizationServers: [] }, /authorizationServers must be a list/],
    [{ ...ok, authorizationServers: ['app'] }, /authorizationServers\[\] must be an http\(s\) URL/],
    [{ ...ok, scopes: 'mcp:read' }, /scopes must be a list/],
    [{ ...ok, scopes: ['mcp read'] }, /scopes must be a list/],
    [{ ...ok, resourceName: '' }, /resourceName/],
    [{ ...ok, jwks: 'nope' }, /protectedResource: jwks must be an http\(s\) URL/],
    [{ ...ok, jwks: { keys: [] } }, /protectedResource: jwks holds no usable key/],
    [{ ...ok, maxAge: 'soon' }, /protectedResource: maxAge/],
    [{ ...ok, cooldown: -1 }, /protectedResource: cooldown/],
    [{ ...ok, timeout: '0s' }, /protectedResource: timeout/],
    [{ ...ok, clock: 5 }, /protectedResource: clock/],
    [{ ...ok, logger: {} }, /protectedResource: logger/],
    [{ ...ok, events: 'on' }, /protectedResource: events must be/],
    [{ ...ok, events: { poll: 'x', credential: 'c'.repeat(32) } }, /protectedResource: events.poll/],
    [{ ...ok, events: { push: '/ssf', credential: 'short' } }, /protectedResource: events.credential/],
    [{ ...ok, events: { push: '/ssf', credential: 'c'.repeat(32), issuer: '' } }, /protectedResource: events.issuer/],
    [{ ...ok, events: { push: '/ssf', credential: 'c'.repeat(32), every: '1s' } }, /unknown option "events.every"/],
    [{ ...ok, audiences: ['api'] }, /protectedResource: unknown option "audiences"/],
  ];
  for (const [opts, message] of cases)
    t.throws(
      () => protectedResource(opts as ProtectedResourceOptions),
      { instanceOf: TypeError, message },
      JSON.stringify(opts),
    );
  const pr = protectedResource({
    ...ok,
    resource: new URL(ok.resource),
    scopes: ['mcp:read'],
    resourceName: 'Tools',
    maxAge: '1m',
    cooldown: 1000,
    timeout: '2s',
    clock: Date.now,
    events: { push: '/ssf/events', credential: 'c'.repeat(32), issuer: 'authkoa' },
    logger: { warn: () => {} },
  });
  t.is(pr.metadataUrl, `https://api.example${WELL_KNOWN}/mcp`);
  t.throws(() => protectedResource({ ...ok }).on('signal', () => {}), { instanceOf: TypeError, message: /no events/ });
});
