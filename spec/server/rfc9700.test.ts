import test, { type ExecutionContext } from 'ava';
import * as oidc from 'openid-client';
import { Client } from '../helpers/http.js';
import { authorizeURL, pkce, signIn, submitLogin } from './fixtures.js';
import { formPost } from './form-post.js';
import { relyingParty, rpSignIn, RP, RP_REDIRECT, SPA, startProvider } from './openid-fixtures.js';

/**
 * The local OpenID provider against RFC 9700 (OAuth 2.0 Security Best Current Practice): one test per requirement
 * on an authorization server, titled by the rule. Each drives a real server of kind `server` (EdDSA service key).
 */

/** A confidential and a public client registered for refresh tokens, a confidential one PKCE is optional for. */
const REFRESHING = { id: 'rp-refresh', secret: 'rp-refresh-secret', redirectURIs: [RP_REDIRECT], refreshTokens: true };
const PUBLIC_REFRESHING = { id: 'spa-refresh', redirectURIs: [RP_REDIRECT], refreshTokens: true };
const NO_PKCE = { id: 'legacy', secret: 'legacy-secret', redirectURIs: [RP_REDIRECT], requirePKCE: false };
/** A client whose redirect URI is on the web (never visited: the tests read the redirect to it). */
const WEB = { id: 'web', secret: 'web-secret', redirectURIs: ['https://rp.example/cb'] };

type RegisteredClient = { id: string; secret?: string };

async function provider(t: ExecutionContext): Promise<string> {
  const { serverURL } = await startProvider(t, {}, { clients: [RP, SPA, REFRESHING, PUBLIC_REFRESHING, NO_PKCE, WEB] });
  return serverURL;
}

/** The PKCE parameters of an authorization request. */
function s256(challenge: string) {
  return { code_challenge: challenge, code_challenge_method: 'S256' };
}

/** A browser where alice has signed in at the server (one login of RP done): the next requests get codes at once. */
async function signedIn(serverURL: string): Promise<Client> {
  const browser = new Client(serverURL);
  const url = authorizeURL(serverURL, { client_id: RP.id, redirect_uri: RP_REDIRECT, ...s256(pkce().challenge) });
  await signIn(browser, url, 'alice', 'wonderland');
  return browser;
}

/** A code for `client` from a signed-in browser, with its PKCE verifier (none when `withPKCE` is false). */
async function codeFor(serverURL: string, browser: Client, client: RegisteredClient, withPKCE = true) {
  const p = pkce();
  const url = authorizeURL(serverURL, {
    client_id: client.id,
    redirect_uri: RP_REDIRECT,
    scope: 'openid profile',
    ...(withPKCE ? s256(p.challenge) : {}),
  });
  const res = await browser.fetch(url);
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const code = new URL(res.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`no code in ${res.headers.get('location')}`);
  return { code, verifier: p.verifier };
}

/** A token request as `client`: HTTP Basic for a confidential client, client_id in the form for a public one. */
function tokenRequest(serverURL: string, client: RegisteredClient, body: Record<string, string>): Promise<Response> {
  const basic = client.secret && `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  return fetch(`${serverURL}/access_token`, {
    method: 'POST',
    headers: basic ? { Authorization: basic } : {},
    body: new URLSearchParams(basic ? body : { client_id: client.id, ...body }),
  });
}

/** The status and OAuth2 error of a token endpoint answer. */
async function refusal(res: Response): Promise<{ status: number; error: string }> {
  return { status: res.status, error: ((await res.json()) as { error: string }).error };
}

async function userinfoStatus(serverURL: string, accessToken: string): Promise<number> {
  return (await fetch(`${serverURL}/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } })).status;
}

/** An authorization response as the browser got it: where it goes and what it says, a redirect or a form_post page. */
async function responseOf(res: Response): Promise<{ to: string; params: Record<string, string> }> {
  if (res.status === 302) {
    const to = new URL(res.headers.get('location')!);
    return { to: `${to.origin}${to.pathname}`, params: Object.fromEntries(to.searchParams) };
  }
  if (res.status !== 200) throw new Error(`not an authorization response: ${res.status} ${await res.text()}`);
  const { action, fields } = formPost(await res.text());
  return { to: action, params: fields };
}

/** An unsigned request object (OpenID Connect Core §6.1, alg none) carrying `claims`. */
function unsigned(claims: Record<string, string>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

/** An authorize request's answer, unfollowed, without a session. */
function authorizeAnswer(serverURL: string, q: Record<string, string>): Promise<Response> {
  return fetch(authorizeURL(serverURL, { redirect_uri: RP_REDIRECT, scope: 'openid', ...q }), { redirect: 'manual' });
}

test('RFC 9700 §2.1: redirect URIs are matched exactly — a trailing slash, another case, an added query or fragment, a prefix or a longer path, another scheme, port or host → a 400 page, never a redirect, even for a signed-in user', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const near: [RegisteredClient & { redirectURIs: string[] }, string[]][] = [
    [
      RP,
      [
        `${RP_REDIRECT}/`,
        'http://127.0.0.1:9/CB',
        'HTTP://127.0.0.1:9/cb',
        `${RP_REDIRECT}?next=%2F`,
        `${RP_REDIRECT}#frag`,
        'http://127.0.0.1:9/c',
        `${RP_REDIRECT}/evil`,
        `${RP_REDIRECT}.evil.example`,
        'http://127.0.0.1:9/x/../cb',
        'http://localhost:9/cb',
        'http://127.0.0.1:9@evil.example/cb',
      ],
    ],
    // Not a loopback URI, where RFC 9700 §4.1.3 lets a native app's port vary: every port counts, even the default.
    [WEB, ['https://rp.example:443/cb', 'https://rp.example:8443/cb', 'http://rp.example/cb', 'https://RP.example/cb']],
  ];
  for (const [client, uris] of near) {
    const q = { client_id: client.id, ...s256(pkce().challenge) };
    for (const uri of uris) {
      const res = await browser.fetch(authorizeURL(serverURL, { ...q, redirect_uri: uri }));
      t.is(res.status, 400, uri);
      t.is(res.headers.get('location'), null, uri);
      t.is(await res.text(), 'redirect_uri is not registered for this client\n', uri);
    }
    const exact = await browser.fetch(authorizeURL(serverURL, { ...q, redirect_uri: client.redirectURIs[0] }));
    t.is(exact.status, 302, 'the registered URI, exactly');
    const { to, params } = await responseOf(exact);
    t.is(to, client.redirectURIs[0]);
    t.truthy(params.code);
  }
});

test('RFC 9700 §2.1 and §4.11: no open redirector — an unknown client_id, an unregistered, missing or repeated redirect_uri never redirects (not even with prompt=none); an error for a registered client goes only to its registered URI', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const evil = 'https://evil.example/cb';
  const challenge = s256(pkce().challenge);
  const pages: [string, string, string][] = [
    ['unknown client', authorizeURL(serverURL, { client_id: 'nobody', redirect_uri: evil }), 'unknown client_id'],
    [
      'unknown client asking for no interaction',
      authorizeURL(serverURL, { client_id: 'nobody', redirect_uri: evil, prompt: 'none', scope: 'openid' }),
      'unknown client_id',
    ],
    [
      'unregistered redirect_uri with prompt=none',
      authorizeURL(serverURL, { client_id: RP.id, redirect_uri: evil, prompt: 'none', scope: 'openid', ...challenge }),
      'redirect_uri is not registered for this client',
    ],
    [
      'an error that would go back, to an unregistered URI',
      authorizeURL(serverURL, { client_id: RP.id, redirect_uri: evil, response_type: 'token' }),
      'redirect_uri is not registered for this client',
    ],
    [
      'no redirect_uri (the one registered is not assumed)',
      authorizeURL(serverURL, { client_id: RP.id, ...challenge }),
      'redirect_uri is not registered for this client',
    ],
    [
      'a request object naming an unregistered redirect_uri',
      authorizeURL(serverURL, {
        client_id: RP.id,
        redirect_uri: RP_REDIRECT,
        ...challenge,
        request: unsigned({ client_id: RP.id, redirect_uri: evil }),
      }),
      'redirect_uri is not registered for this client',
    ],
    [
      'redirect_uri twice',
      `${authorizeURL(serverURL, { client_id: RP.id, redirect_uri: RP_REDIRECT, ...challenge })}&redirect_uri=${encodeURIComponent(evil)}`,
      'a parameter is repeated',
    ],
  ];
  for (const [what, url, message] of pages) {
    for (const [who, res] of [
      ['signed in', await browser.fetch(url)],
      ['no session', await fetch(url, { redirect: 'manual' })],
    ] as const) {
      t.is(res.status, 400, `${what}, ${who}`);
      t.is(res.headers.get('location'), null, `${what}, ${who}`);
      t.is(await res.text(), `${message}\n`, `${what}, ${who}`);
    }
  }

  // A registered client's errors go back to its registered URI, and only there: as a redirect or a form_post page.
  const redirected = await responseOf(await authorizeAnswer(serverURL, { client_id: RP.id, response_type: 'token' }));
  t.is(redirected.to, RP_REDIRECT);
  t.like(redirected.params, { error: 'unsupported_response_type', state: 'st4te', iss: serverURL });
  const page = await authorizeAnswer(serverURL, {
    client_id: RP.id,
    response_type: 'token',
    response_mode: 'form_post',
  });
  t.regex(page.headers.get('content-security-policy')!, /form-action http:\/\/127\.0\.0\.1:9;/);
  const posted = await responseOf(page);
  t.is(posted.to, RP_REDIRECT);
  t.like(posted.params, { error: 'unsupported_response_type', iss: serverURL });
});

test('RFC 9700 §2.1.1: PKCE with S256 only — code_challenge_method=plain, or a challenge without a method (plain by default), goes back to the client as invalid_request; discovery lists only S256', async (t) => {
  const serverURL = await provider(t);
  const { challenge, verifier } = pkce();
  for (const client of [RP, SPA, NO_PKCE])
    for (const [what, q] of [
      ['plain', { code_challenge: verifier, code_challenge_method: 'plain' }],
      ['no method', { code_challenge: challenge }],
    ] as const) {
      const res = await authorizeAnswer(serverURL, { client_id: client.id, ...q });
      t.is(res.status, 302, `${client.id}, ${what}`);
      const { to, params } = await responseOf(res);
      t.is(to, RP_REDIRECT);
      t.like(params, { error: 'invalid_request', state: 'st4te', iss: serverURL }, `${client.id}, ${what}`);
      t.false('code' in params);
    }
  for (const client of [RP, SPA, NO_PKCE])
    t.is(
      (await authorizeAnswer(serverURL, { client_id: client.id, ...s256(challenge) })).status,
      200,
      'S256: the page',
    );
  const meta = (await (await fetch(`${serverURL}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  t.deepEqual(meta.code_challenge_methods_supported, ['S256']);
});

test('RFC 9700 §2.1.1: a code issued for a code_challenge is redeemed only with its code_verifier — none or a wrong one → invalid_grant', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  for (const client of [RP, SPA]) {
    const missing = await codeFor(serverURL, browser, client);
    t.deepEqual(
      await refusal(
        await tokenRequest(serverURL, client, {
          grant_type: 'authorization_code',
          code: missing.code,
          redirect_uri: RP_REDIRECT,
        }),
      ),
      { status: 400, error: 'invalid_grant' },
      `${client.id}: no verifier`,
    );
    const wrong = await codeFor(serverURL, browser, client);
    t.deepEqual(
      await refusal(
        await tokenRequest(serverURL, client, {
          grant_type: 'authorization_code',
          code: wrong.code,
          redirect_uri: RP_REDIRECT,
          code_verifier: pkce().verifier,
        }),
      ),
      { status: 400, error: 'invalid_grant' },
      `${client.id}: another verifier`,
    );
    const right = await codeFor(serverURL, browser, client);
    const ok = await tokenRequest(serverURL, client, {
      grant_type: 'authorization_code',
      code: right.code,
      redirect_uri: RP_REDIRECT,
      code_verifier: right.verifier,
    });
    t.is(ok.status, 200, `${client.id}: its own verifier`);
  }
});

test('RFC 9700 §2.1.1 and §4.8.2: PKCE downgrade — a token request with a code_verifier for a code issued without a code_challenge is refused', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const downgraded = await codeFor(serverURL, browser, NO_PKCE, false);
  t.deepEqual(
    await refusal(
      await tokenRequest(serverURL, NO_PKCE, {
        grant_type: 'authorization_code',
        code: downgraded.code,
        redirect_uri: RP_REDIRECT,
        code_verifier: downgraded.verifier,
      }),
    ),
    { status: 400, error: 'invalid_grant' },
  );
  const plain = await codeFor(serverURL, browser, NO_PKCE, false);
  const ok = await tokenRequest(serverURL, NO_PKCE, {
    grant_type: 'authorization_code',
    code: plain.code,
    redirect_uri: RP_REDIRECT,
  });
  t.is(ok.status, 200, 'the same client without a verifier: PKCE is optional for it');
});

test('RFC 9700 §4.2.4: an authorization code is invalidated after its first use; presented again → invalid_grant, and the access token and refresh token issued for it are revoked', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const redeem = (c: { code: string; verifier: string }) =>
    tokenRequest(serverURL, REFRESHING, {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: RP_REDIRECT,
      code_verifier: c.verifier,
    });
  const code = await codeFor(serverURL, browser, REFRESHING);
  const first = (await (await redeem(code)).json()) as { access_token: string; refresh_token: string };
  const otherCode = await codeFor(serverURL, browser, REFRESHING);
  const other = (await (await redeem(otherCode)).json()) as { access_token: string };
  t.is(await userinfoStatus(serverURL, first.access_token), 200);

  t.deepEqual(await refusal(await redeem(code)), { status: 400, error: 'invalid_grant' });
  t.is(await userinfoStatus(serverURL, first.access_token), 401, 'the access token issued for the code');
  t.deepEqual(
    await refusal(
      await tokenRequest(serverURL, REFRESHING, { grant_type: 'refresh_token', refresh_token: first.refresh_token }),
    ),
    { status: 400, error: 'invalid_grant' },
    'the refresh token issued for the code',
  );
  t.is(await userinfoStatus(serverURL, other.access_token), 200, "another code's tokens");
});

test("RFC 9700 §2.1 (mix-up, §4.4.2) with RFC 9207: every authorization response carries iss — codes and errors, redirected or form_post, and prompt=none's login_required", async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const good = { client_id: RP.id, ...s256(pkce().challenge) };
  const plain = { client_id: RP.id, code_challenge: pkce().verifier, code_challenge_method: 'plain' };
  const cases: [string, Promise<Response>, string][] = [
    ['a code', browser.fetch(authorizeURL(serverURL, { ...good, redirect_uri: RP_REDIRECT })), 'code'],
    [
      'a code by form_post',
      browser.fetch(authorizeURL(serverURL, { ...good, redirect_uri: RP_REDIRECT, response_mode: 'form_post' })),
      'code',
    ],
    ['an error', authorizeAnswer(serverURL, plain), 'error'],
    ['an error by form_post', authorizeAnswer(serverURL, { ...plain, response_mode: 'form_post' }), 'error'],
    ['an unknown response_mode', authorizeAnswer(serverURL, { ...good, response_mode: 'fragment' }), 'error'],
    ['login_required', authorizeAnswer(serverURL, { ...good, prompt: 'none' }), 'error'],
  ];
  for (const [what, answer, field] of cases) {
    const { to, params } = await responseOf(await answer);
    t.is(to, RP_REDIRECT, what);
    t.truthy(params[field], what);
    t.is(params.iss, serverURL, what);
  }
});

test('RFC 6749 §5.1 and §5.2, as RFC 9700 keeps them: every token endpoint answer has Cache-Control: no-store and Pragma: no-cache — tokens, refused grants and refused clients', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  const code = await codeFor(serverURL, browser, REFRESHING);
  const issued = await tokenRequest(serverURL, REFRESHING, {
    grant_type: 'authorization_code',
    code: code.code,
    redirect_uri: RP_REDIRECT,
    code_verifier: code.verifier,
  });
  const { refresh_token } = (await issued.clone().json()) as { refresh_token: string };
  const answers: [string, Response, number][] = [
    ['tokens for a code', issued, 200],
    [
      'tokens for a refresh token',
      await tokenRequest(serverURL, REFRESHING, { grant_type: 'refresh_token', refresh_token }),
      200,
    ],
    [
      'a spent code',
      await tokenRequest(serverURL, REFRESHING, { grant_type: 'authorization_code', code: code.code }),
      400,
    ],
    ['an unknown grant type', await tokenRequest(serverURL, REFRESHING, { grant_type: 'magic' }), 400],
    [
      'a wrong client secret',
      await tokenRequest(serverURL, { id: REFRESHING.id, secret: 'wrong' }, { grant_type: 'refresh_token' }),
      401,
    ],
    ['an unknown public client', await tokenRequest(serverURL, { id: 'nobody' }, { grant_type: 'refresh_token' }), 401],
  ];
  for (const [what, res, status] of answers) {
    t.is(res.status, status, what);
    t.is(res.headers.get('cache-control'), 'no-store', what);
    t.is(res.headers.get('pragma'), 'no-cache', what);
  }
});

test("RFC 9700 §4.12: the login form's POST is answered 303 See Other (never 307) to the server's own authorize URL; the credentials never travel on to the client", async (t) => {
  const serverURL = await provider(t);
  for (const mode of ['query', 'form_post']) {
    const browser = new Client(serverURL);
    const url = authorizeURL(serverURL, {
      client_id: RP.id,
      redirect_uri: RP_REDIRECT,
      response_mode: mode,
      ...s256(pkce().challenge),
    });
    const wrong = await submitLogin(browser, url, 'alice', 'not the password');
    t.is(wrong.res.status, 200, 'a refused sign-in shows the page again: no redirect');
    t.is(wrong.res.headers.get('location'), null);
    const { res } = await submitLogin(browser, url, 'alice', 'wonderland');
    t.is(res.status, 303, mode);
    const next = new URL(res.headers.get('location')!, serverURL);
    t.is(`${next.origin}${next.pathname}`, `${serverURL}/authorize`, 'back to the server, not to the client');
    t.is(next.search, new URL(url).search);
    // The browser follows the 303 with a GET: the authorization response carries no credential.
    const answer = await responseOf(await browser.fetch(next.href));
    t.is(answer.to, RP_REDIRECT);
    t.deepEqual(Object.keys(answer.params).sort(), ['code', 'iss', 'state'], mode);
  }
  // An authorization request sent as a POST (OpenID Connect Core §3.1.2.1) is turned into a GET with a 303 as well.
  const asForm = await fetch(`${serverURL}/authorize`, {
    method: 'POST',
    body: new URLSearchParams({ client_id: RP.id, redirect_uri: RP_REDIRECT, response_type: 'code' }),
    redirect: 'manual',
  });
  t.is(asForm.status, 303);
});

test("RFC 9700 §4.16: the pages of the authorization endpoint cannot be framed — X-Frame-Options: DENY and CSP frame-ancestors 'none' on the login page (also after a refusal) and on the form_post page", async (t) => {
  const serverURL = await provider(t);
  const browser = new Client(serverURL);
  const url = authorizeURL(serverURL, {
    client_id: RP.id,
    redirect_uri: RP_REDIRECT,
    response_mode: 'form_post',
    ...s256(pkce().challenge),
  });
  const loginPage = await browser.fetch(url);
  const wrongPassword = (await submitLogin(browser, url, 'alice', 'not the password')).res;
  const noCSRF = (await submitLogin(browser, url, 'alice', 'wonderland', '')).res;
  const { res: posted } = await submitLogin(browser, url, 'alice', 'wonderland');
  const formPostPage = await browser.fetch(new URL(posted.headers.get('location')!, serverURL).href);
  const errorPage = await authorizeAnswer(serverURL, {
    client_id: RP.id,
    response_mode: 'form_post',
    response_type: 'x',
  });
  const pages: [string, Response, number][] = [
    ['the login page', loginPage, 200],
    ['the login page after a wrong password', wrongPassword, 200],
    ['the login page after a post without its CSRF token', noCSRF, 403],
    ['the form_post page with a code', formPostPage, 200],
    ['the form_post page with an error', errorPage, 200],
  ];
  for (const [what, res, status] of pages) {
    t.is(res.status, status, what);
    t.regex(res.headers.get('content-type')!, /^text\/html/, what);
    t.is(res.headers.get('x-frame-options'), 'DENY', what);
    t.regex(res.headers.get('content-security-policy')!, /(^|; )frame-ancestors 'none'(;|$)/, what);
  }
});

test('RFC 9700 §2.6: CORS is not supported at the authorization endpoint — no Access-Control-Allow-* on its pages, redirects or preflights', async (t) => {
  const serverURL = await provider(t);
  const origin = { Origin: 'https://spa.example' };
  const q = { client_id: RP.id, redirect_uri: RP_REDIRECT, scope: 'openid', ...s256(pkce().challenge) };
  const answers: [string, Response][] = [
    ['the login page', await fetch(authorizeURL(serverURL, q), { headers: origin })],
    [
      'an error redirect',
      await fetch(authorizeURL(serverURL, { ...q, response_type: 'token' }), { headers: origin, redirect: 'manual' }),
    ],
    [
      'a preflight',
      await fetch(`${serverURL}/authorize`, {
        method: 'OPTIONS',
        headers: { ...origin, 'Access-Control-Request-Method': 'POST' },
      }),
    ],
  ];
  for (const [what, res] of answers) {
    const cors: string[] = [];
    res.headers.forEach((_, name) => void (name.startsWith('access-control-') && cors.push(name)));
    t.deepEqual(cors, [], what);
  }
  t.is(answers[2][1].status, 405);
  // The check can fail: discovery, which relying parties in browsers read, does send one.
  const discovery = await fetch(`${serverURL}/.well-known/openid-configuration`, { headers: origin });
  const allowed: string[] = [];
  discovery.headers.forEach((_, name) => void (name.startsWith('access-control-') && allowed.push(name)));
  t.deepEqual(allowed, ['access-control-allow-origin']);
});

test('RFC 9700 §2.4: the resource owner password credentials grant is not offered — grant_type=password → unsupported_grant_type, and discovery does not list it', async (t) => {
  const serverURL = await provider(t);
  for (const client of [RP, SPA])
    t.deepEqual(
      await refusal(
        await tokenRequest(serverURL, client, { grant_type: 'password', username: 'alice', password: 'wonderland' }),
      ),
      { status: 400, error: 'unsupported_grant_type' },
      client.id,
    );
  const meta = (await (await fetch(`${serverURL}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  t.deepEqual(meta.grant_types_supported, ['authorization_code', 'refresh_token']);
});

test("RFC 9700 §2.2.2 and §4.14.2: a public client's refresh tokens are rotated, and a replayed one revokes the active refresh and access tokens", async (t) => {
  const serverURL = await provider(t);
  const config = await relyingParty(serverURL, PUBLIC_REFRESHING);
  const { tokens } = await rpSignIn(config, serverURL);
  const active = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  t.not(active.refresh_token, tokens.refresh_token, 'a new refresh token with each refresh');
  t.is(await userinfoStatus(serverURL, active.access_token), 200);

  const err = await t.throwsAsync(oidc.refreshTokenGrant(config, tokens.refresh_token!), {
    instanceOf: oidc.ResponseBodyError,
  });
  t.is(err?.error, 'invalid_grant', 'the replayed one');
  t.is(await userinfoStatus(serverURL, active.access_token), 401);
  const again = await t.throwsAsync(oidc.refreshTokenGrant(config, active.refresh_token!), {
    instanceOf: oidc.ResponseBodyError,
  });
  t.is(again?.error, 'invalid_grant', 'the active one');
});

test('RFC 9700 §4.14.2: refresh tokens are bound to the scope the user consented to — a refresh asking for more → invalid_scope', async (t) => {
  const serverURL = await provider(t);
  const config = await relyingParty(serverURL, REFRESHING);
  const { tokens } = await rpSignIn(config, serverURL, 'alice', 'wonderland');
  t.is(tokens.scope, 'openid profile email');
  for (const scope of ['openid profile email phone', 'address', 'openid offline_access']) {
    const err = await t.throwsAsync(oidc.refreshTokenGrant(config, tokens.refresh_token!, { scope }), {
      instanceOf: oidc.ResponseBodyError,
    });
    t.is(err?.error, 'invalid_scope', scope);
  }
  t.is((await oidc.refreshTokenGrant(config, tokens.refresh_token!, { scope: 'openid email' })).scope, 'openid email');
});

test('RFC 9700 §4.14.2: the server decides per client whether to issue refresh tokens — none for a client not registered for them, and its refresh_token grant → unauthorized_client', async (t) => {
  const serverURL = await provider(t);
  const browser = await signedIn(serverURL);
  for (const client of [RP, SPA]) {
    const c = await codeFor(serverURL, browser, client);
    const res = await tokenRequest(serverURL, client, {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: RP_REDIRECT,
      code_verifier: c.verifier,
    });
    const body = (await res.json()) as Record<string, unknown>;
    t.is(res.status, 200);
    t.truthy(body.access_token);
    t.false('refresh_token' in body, client.id);
    t.deepEqual(
      await refusal(await tokenRequest(serverURL, client, { grant_type: 'refresh_token', refresh_token: 'anything' })),
      { status: 400, error: 'unauthorized_client' },
      client.id,
    );
  }
  const c = await codeFor(serverURL, browser, REFRESHING);
  const body = (await (
    await tokenRequest(serverURL, REFRESHING, {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: RP_REDIRECT,
      code_verifier: c.verifier,
    })
  ).json()) as Record<string, unknown>;
  t.is(typeof body.refresh_token, 'string', 'a client registered for them gets one');
});
