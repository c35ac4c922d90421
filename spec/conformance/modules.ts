import type { ExecutionContext } from 'ava';
import type { JSONWebKeySet } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { Browser, type Arrival } from './browser.js';
import { checkErrorResponse, checkIdToken, suiteRandom } from './checks.js';
import { CLIENTS, REDIRECT, type ProviderUnderTest } from './providers.js';
import type { RelyingParty, Tokens } from './relying-parties.js';

/**
 * The modules of the OpenID Foundation's Basic OP, Form Post OP and Config OP certification plans, by
 * their names, as the suite runs them (its Java sources, read for this: what each sends and what
 * passes). Each drives a provider through a relying-party library and asserts what the suite fails
 * on; where the suite accepts two outcomes, the assertion names the one we chose. Each returns what it
 * observed, so the differential run can set one provider's answers beside another's.
 */

export interface Run {
  t: ExecutionContext;
  provider: ProviderUnderTest;
  mode: 'query' | 'form_post';
  rp(client?: keyof typeof CLIENTS): Promise<RelyingParty>;
  /** The provider's time in ms. */
  now(): number;
  keys: JSONWebKeySet;
  /** The provider's discovery document. */
  meta: { token_endpoint: string; userinfo_endpoint: string; jwks_uri: string };
}

export type Outcome = Record<string, unknown>;
export type Module = (run: Run) => Promise<Outcome>;

interface FlowOptions {
  browser?: Browser;
  client?: keyof typeof CLIENTS;
  /** Added to (or, undefined, removed from) the suite's request. */
  params?: Record<string, string | undefined>;
  method?: 'GET' | 'POST';
  verifier?: string;
  maxAge?: number;
  /** Sends the parameters in reverse alphabetical order (oidcc-alternate-happy-flow). */
  reversed?: boolean;
}

interface Flow {
  arrival: Arrival;
  rp: RelyingParty;
  state: string;
  nonce?: string;
  /** The PKCE verifier added for a provider that requires PKCE. */
  verifier?: string;
}

interface Done extends Flow {
  tokens: Tokens;
  id: Record<string, unknown>;
}

/** The suite's authorization request: the client, its redirect URI, scope openid, a fresh state and nonce, a code. */
function suiteRequest(run: Run, rp: RelyingParty): Record<string, string> {
  return {
    client_id: rp.client.id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: suiteRandom(),
    nonce: suiteRandom(),
    ...(run.mode === 'form_post' ? { response_mode: 'form_post' } : {}),
  };
}

/** Sends the suite's authorization request (client, redirect URI, scope openid, state, nonce, code) with `o.params`. */
async function authorize(run: Run, o: FlowOptions = {}): Promise<Flow> {
  const rp = await run.rp(o.client);
  const pkce = run.provider.pkce && o.params?.code_challenge === undefined ? pkcePair() : undefined;
  const params: Record<string, string | undefined> = { ...suiteRequest(run, rp), ...pkce?.params, ...o.params };
  const defined = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  let url = rp.authorizationURL(Object.fromEntries(defined));
  // A library may add what the module leaves out on purpose (openid-client adds response_type=code).
  for (const k of [...url.searchParams.keys()]) if (params[k] === undefined) url.searchParams.delete(k);
  if (o.reversed) {
    url = new URL(url.origin + url.pathname);
    for (const [k, v] of defined.sort(([a], [b]) => b.localeCompare(a))) url.searchParams.append(k, v);
  }
  const browser = o.browser ?? new Browser(run.provider.issuer);
  const arrival = await browser.authorize(url, o.method);
  return { arrival, rp, state: params.state!, nonce: params.nonce, verifier: pkce?.verifier };
}

/**
 * A PKCE verifier and its S256 challenge, for a provider that requires PKCE of every client: the one thing the
 * modules send beyond the suite's requests (the Basic OP plan sends none, as OAuth 2.0 let confidential clients).
 */
function pkcePair(): { verifier: string; params: Record<string, string> } {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, params: { code_challenge: challenge, code_challenge_method: 'S256' } };
}

/** A flow that must succeed: the answer comes back in the run's response mode, the code is redeemed, the id_token checked. */
async function login(run: Run, o: FlowOptions = {}): Promise<Done> {
  const flow = await authorize(run, o);
  const { t } = run;
  t.is(flow.arrival.via, run.mode, `the answer comes back by ${run.mode}: ${flow.arrival.page ?? flow.arrival.params}`);
  t.is(flow.arrival.params.get('error'), null, `no error: ${flow.arrival.params.get('error_description')}`);
  t.is(flow.arrival.params.get('state'), flow.state, 'state echoed exactly');
  const tokens = await flow.rp.redeem(flow.arrival, {
    state: flow.state,
    nonce: flow.nonce,
    verifier: o.verifier ?? flow.verifier,
    maxAge: o.maxAge,
  });
  const id = await checkIdToken(t, tokens, {
    issuer: run.provider.issuer,
    clientId: flow.rp.client.id,
    nonce: flow.nonce,
    keys: run.keys,
    now: run.now(),
  });
  return { ...flow, tokens, id };
}

/** A flow whose answer must be an error: checked as the suite checks error responses; returns the error. */
async function refused(run: Run, o: FlowOptions = {}): Promise<{ error: string; via: string }> {
  const flow = await authorize(run, o);
  run.t.is(flow.arrival.via, run.mode, `the error comes back by ${run.mode}`);
  return { error: checkErrorResponse(run.t, flow.arrival, o.params?.state ?? flow.state), via: flow.arrival.via };
}

/** The names of a claims set, sorted, without `sub`. */
function names(claims: Record<string, unknown>): string[] {
  return Object.keys(claims)
    .filter((k) => k !== 'sub')
    .sort();
}

/** A happy flow with one more parameter: the module passes when the parameter changes nothing. */
function accepts(params: Record<string, string>): Module {
  return async (run) => {
    const done = await login(run, { params });
    return { flow: 'ok', sub: done.id.sub };
  };
}

/** The scope modules: userinfo answers for the scope, with the id_token's sub. */
function scope(value: string, reversed = false): Module {
  return async (run) => {
    const done = await login(run, { params: { scope: value }, reversed });
    const info = await done.rp.userinfo(done.tokens.access_token, done.id.sub as string, 'GET');
    run.t.is(info.sub, done.id.sub, 'userinfo sub is the id_token sub');
    return { userinfo: names(info), idToken: names(done.id).filter((n) => !ID_TOKEN_OWN.includes(n)) };
  };
}

/** The id_token's claims about itself; anything else in it is a user claim. */
const ID_TOKEN_OWN = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'acr', 'amr', 'sid', 'jti'];

/** A token request as the suite sends it: form fields, client_secret_basic. */
function tokenRequest(run: Run, fields: Record<string, string>): Promise<Response> {
  const c = CLIENTS.basic;
  return fetch(run.meta.token_endpoint, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`,
      Accept: 'application/json',
    },
    body: new URLSearchParams(fields),
  });
}

/** The same request twice in one browser: the second asks for `second` (prompt, max_age, id_token_hint). */
async function twice(
  run: Run,
  first: FlowOptions,
  second: (done: Done) => FlowOptions,
  pause = 0,
): Promise<[Done, Done]> {
  const browser = new Browser(run.provider.issuer);
  const a = await login(run, { ...first, browser });
  run.t.true(a.arrival.loginShown, 'the first request signs in');
  run.provider.advance(pause);
  const b = await login(run, { ...second(a), browser });
  return [a, b];
}

/**
 * The second id_token's auth_time against the first's: later, as the suite requires when both carry one (a
 * provider need not put auth_time in an id_token nobody asked it for).
 */
function laterAuthTime(run: Run, a: Done, b: Done): string {
  if (a.id.auth_time === undefined || b.id.auth_time === undefined) return 'not in both id_tokens';
  run.t.true((b.id.auth_time as number) > (a.id.auth_time as number), 'auth_time is the new sign-in');
  return 'later';
}

/** A code spent, then presented again after `wait` ms: refused, and (after) the first access token revoked. */
function codeReuse(wait: number): Module {
  return async (run) => {
    const done = await login(run);
    const code = done.arrival.params.get('code')!;
    run.provider.advance(wait);
    const again = await tokenRequest(run, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    run.t.is(again.status, 400);
    run.t.regex(again.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await again.json()) as { error: string };
    run.t.is(body.error, 'invalid_grant');
    const info = await fetch(run.meta.userinfo_endpoint, {
      headers: { Authorization: `Bearer ${done.tokens.access_token}` },
    });
    return { status: again.status, error: body.error, accessTokenRevoked: info.status === 401 };
  };
}

/**
 * An unsigned request object carrying the whole request (with PKCE for a provider that requires it); the query repeats
 * the four parameters §6.1 requires.
 */
function requestObject(run: Run, rp: RelyingParty, redirectInQuery: string, pkce?: Record<string, string>): URL {
  const claims = { ...suiteRequest(run, rp), ...pkce };
  const jwt = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
  return rp.authorizationURL({
    request: jwt,
    response_type: 'code',
    client_id: rp.client.id,
    scope: 'openid',
    redirect_uri: redirectInQuery,
  });
}

export const BASIC_MODULES: Record<string, Module> = {
  'oidcc-server': async (run) => {
    const done = await login(run);
    const code = done.arrival.params.get('code')!;
    run.t.true(Buffer.byteLength(code) >= 16, 'the code has 128 bits or more');
    run.t.is(done.tokens.token_type.toLowerCase(), 'bearer');
    run.t.true(typeof done.tokens.expires_in === 'number' && done.tokens.expires_in > 0);
    const info = await done.rp.userinfo(done.tokens.access_token, done.id.sub as string, 'GET');
    return { flow: 'ok', atHash: done.id.at_hash !== undefined, userinfo: info.sub === done.id.sub };
  },
  'oidcc-server-client-secret-post': async (run) => {
    const done = await login(run, { client: 'post' });
    return { flow: 'ok', sub: done.id.sub };
  },
  // Three outcomes pass the suite: invalid_request or unsupported_response_type, or an error page (a screenshot).
  'oidcc-response-type-missing': async (run) => {
    const flow = await authorize(run, { params: { response_type: undefined } });
    if (flow.arrival.via === 'page') return { via: 'page' };
    run.t.is(flow.arrival.via, run.mode, `the error comes back by ${run.mode}`);
    const error = checkErrorResponse(run.t, flow.arrival, flow.state);
    run.t.true(['invalid_request', 'unsupported_response_type'].includes(error));
    return { via: flow.arrival.via, error };
  },
  'oidcc-userinfo-get': async (run) => {
    const done = await login(run);
    const info = await done.rp.userinfo(done.tokens.access_token, done.id.sub as string, 'GET');
    return { sub: info.sub };
  },
  'oidcc-userinfo-post-header': async (run) => {
    const done = await login(run);
    const info = await done.rp.userinfo(done.tokens.access_token, done.id.sub as string, 'POST');
    return { sub: info.sub };
  },
  'oidcc-userinfo-post-body': async (run) => {
    const done = await login(run);
    const res = await fetch(run.meta.userinfo_endpoint, {
      method: 'POST',
      body: new URLSearchParams({ access_token: done.tokens.access_token }),
    });
    // Not taking the token in the body is a warning in the suite; taking it, the answer must be JSON with sub.
    if (res.status !== 200) return { status: res.status };
    run.t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
    return { status: res.status, sub: ((await res.json()) as { sub: string }).sub };
  },
  'oidcc-ensure-request-without-nonce-succeeds-for-code-flow': async (run) => {
    const done = await login(run, { params: { nonce: undefined } });
    run.t.is(done.id.nonce, undefined);
    return { flow: 'ok' };
  },
  'oidcc-scope-profile': scope('openid profile'),
  'oidcc-scope-email': scope('openid email'),
  'oidcc-scope-address': scope('openid address'),
  'oidcc-scope-phone': scope('openid phone'),
  'oidcc-scope-all': scope('openid email phone address profile'),
  'oidcc-ensure-other-scope-order-succeeds': scope('email openid'),
  'oidcc-alternate-happy-flow': scope('email openid', true),
  'oidcc-display-page': accepts({ display: 'page' }),
  'oidcc-display-popup': accepts({ display: 'popup' }),
  'oidcc-prompt-login': async (run) => {
    const [a, b] = await twice(run, {}, () => ({ params: { prompt: 'login' } }), 1000);
    run.t.true(b.arrival.loginShown, 'prompt=login shows the login page again');
    return { secondLogin: b.arrival.loginShown, authTime: laterAuthTime(run, a, b) };
  },
  'oidcc-prompt-none-not-logged-in': async (run) => {
    const state = suiteRandom(128);
    const { error } = await refused(run, { params: { prompt: 'none', state } });
    run.t.true(
      ['login_required', 'interaction_required', 'account_selection_required', 'consent_required'].includes(error),
    );
    return { error };
  },
  'oidcc-prompt-none-logged-in': async (run) => {
    const [a, b] = await twice(run, {}, () => ({ params: { prompt: 'none' } }));
    run.t.false(b.arrival.loginShown);
    run.t.is(b.id.auth_time, a.id.auth_time);
    run.t.is(b.id.sub, a.id.sub);
    return { secondLogin: false, sameAuthTime: true };
  },
  'oidcc-max-age-1': async (run) => {
    const [a, b] = await twice(run, {}, () => ({ params: { max_age: '1' }, maxAge: 1 }), 2000);
    run.t.true(b.arrival.loginShown, 'a sign-in older than max_age is done again');
    run.t.is(typeof b.id.auth_time, 'number', 'auth_time is present when max_age is sent');
    return { secondLogin: b.arrival.loginShown, authTime: laterAuthTime(run, a, b) };
  },
  'oidcc-max-age-10000': async (run) => {
    const [a, b] = await twice(run, { params: { max_age: '15000' }, maxAge: 15000 }, () => ({
      params: { max_age: '10000' },
      maxAge: 10000,
    }));
    run.t.false(b.arrival.loginShown);
    run.t.is(typeof a.id.auth_time, 'number');
    run.t.is(b.id.auth_time, a.id.auth_time);
    return { secondLogin: false, sameAuthTime: true };
  },
  'oidcc-ensure-request-with-unknown-parameter-succeeds': accepts({ extra: 'foobar' }),
  'oidcc-id-token-hint': async (run) => {
    const [a, b] = await twice(run, {}, (first) => ({
      params: { prompt: 'none', id_token_hint: first.tokens.id_token },
    }));
    run.t.false(b.arrival.loginShown);
    run.t.is(b.id.auth_time, a.id.auth_time);
    run.t.is(b.id.sub, a.id.sub);
    return { secondLogin: false, sameSub: true };
  },
  'oidcc-login-hint': accepts({ login_hint: 'buffy@127.0.0.1' }),
  'oidcc-ui-locales': accepts({ ui_locales: 'se' }),
  'oidcc-claims-locales': accepts({ claims_locales: 'se' }),
  'oidcc-ensure-request-with-acr-values-succeeds': accepts({ acr_values: '1 2' }),
  'oidcc-codereuse': codeReuse(0),
  'oidcc-codereuse-30seconds': codeReuse(30_000),
  'oidcc-ensure-registered-redirect-uri': async (run) => {
    const flow = await authorize(run, { params: { redirect_uri: `${REDIRECT}/${suiteRandom()}` } });
    run.t.is(flow.arrival.via, 'page', 'an unregistered redirect URI is never redirected to, not even with an error');
    run.t.true(flow.arrival.status >= 400);
    return { via: flow.arrival.via };
  },
  // A provider that does not take the request by POST gets a warning from the suite, not a failure.
  'oidcc-ensure-post-request-succeeds': async (run) => {
    const flow = await authorize(run, { method: 'POST' });
    if (flow.arrival.via === 'page') return { post: `not supported (${flow.arrival.status})` };
    await login(run, { method: 'POST' });
    return { post: 'ok' };
  },
  // Supported (alg none): the object's state and nonce come back, as the suite's pass requires.
  'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported': (run) =>
    requestObjectFlow(run, REDIRECT),
  'oidcc-ensure-request-object-with-redirect-uri': (run) => requestObjectFlow(run, `${REDIRECT}_invalid`),
  'oidcc-claims-essential': async (run) => {
    const done = await login(run, { params: { claims: JSON.stringify({ userinfo: { name: { essential: true } } }) } });
    const info = await done.rp.userinfo(done.tokens.access_token, done.id.sub as string, 'GET');
    run.t.is(info.sub, done.id.sub);
    run.t.is(typeof info.name, 'string', 'the essential claim asked for is given');
    return { userinfo: names(info) };
  },
  'oidcc-refresh-token': async (run) => {
    const params = { scope: 'openid offline_access', prompt: 'consent' };
    const done = await login(run, { params });
    const first = done.tokens.refresh_token;
    run.t.regex(first ?? '', /^[\x20-\x7e]+$/, 'a refresh token is issued');
    run.provider.advance(1000);
    const refreshed = await done.rp.refresh(first!, 'openid offline_access');
    run.t.is(refreshed.token_type.toLowerCase(), 'bearer');
    run.t.is(refreshed.claims.iss, done.id.iss);
    run.t.is(refreshed.claims.sub, done.id.sub);
    run.t.is(refreshed.claims.aud, done.id.aud);
    run.t.not(refreshed.claims.iat, done.id.iat, 'a new id_token');
    run.t.is(refreshed.claims.auth_time, done.id.auth_time);
    await done.rp.userinfo(refreshed.access_token, done.id.sub as string, 'GET');
    // client2's refresh token presented by the first client: refused.
    const other = await login(run, { client: 'second', params: { ...params, nonce: suiteRandom(43) } });
    const stolen = await tokenRequest(run, { grant_type: 'refresh_token', refresh_token: other.tokens.refresh_token! });
    run.t.is(stolen.status, 400);
    run.t.regex(stolen.headers.get('content-type') ?? '', /^application\/json/);
    run.t.is(((await stolen.json()) as { error: string }).error, 'invalid_grant');
    return { rotated: refreshed.refresh_token !== undefined && refreshed.refresh_token !== first, crossClient: 400 };
  },
  'oidcc-ensure-request-with-valid-pkce-succeeds': async (run) => {
    const verifier = [...randomBytes(96)]
      .map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'[b % 66])
      .join('')
      .slice(0, 128);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await login(run, { params: { code_challenge: challenge, code_challenge_method: 'S256' }, verifier });
    return { flow: 'ok' };
  },
};

/** A request object's flow, the query's redirect URI `redirectInQuery`. */
async function requestObjectFlow(run: Run, redirectInQuery: string): Promise<Outcome> {
  const rp = await run.rp();
  const pkce = run.provider.pkce ? pkcePair() : undefined;
  const url = requestObject(run, rp, redirectInQuery, pkce?.params);
  const arrival = await new Browser(run.provider.issuer).authorize(url);
  return requestObjectOutcome(run, rp, url, arrival, pkce?.verifier);
}

/** A request object's flow: processed (state, nonce and redirect URI from the object) and redeemed. */
async function requestObjectOutcome(
  run: Run,
  rp: RelyingParty,
  url: URL,
  arrival: Arrival,
  verifier?: string,
): Promise<Outcome> {
  const error = arrival.params.get('error');
  if (error === 'request_not_supported') return { requestObject: 'refused as unsupported', via: arrival.via };
  // The query's redirect URI is not registered: an error page passes too (the suite asks for a screenshot).
  if (arrival.via === 'page' && url.searchParams.get('redirect_uri') !== REDIRECT)
    return { requestObject: 'error page' };
  const object = JSON.parse(Buffer.from(url.searchParams.get('request')!.split('.')[1]!, 'base64url').toString());
  run.t.is(arrival.via, run.mode, `the answer comes back by ${run.mode}: ${arrival.page ?? arrival.params}`);
  run.t.is(error, null);
  run.t.is(arrival.params.get('state'), object.state, "the object's state comes back");
  const tokens = await rp.redeem(arrival, { state: object.state, nonce: object.nonce, verifier });
  await checkIdToken(run.t, tokens, {
    issuer: run.provider.issuer,
    clientId: rp.client.id,
    nonce: object.nonce,
    keys: run.keys,
    now: run.now(),
  });
  return { requestObject: 'processed', via: arrival.via };
}
