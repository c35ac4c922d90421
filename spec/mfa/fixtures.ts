/**
 * An app with the second factor on, and the steps tests repeat: log in with a password, set up TOTP
 * (codes computed by the `otpauth` library from the URI the server hands out, not by our code), answer
 * the second step.
 */
import * as OTPAuth from 'otpauth';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import type Router from '@koa/router';
import type { AuthKoa, AuthKoaOptions, ProviderEntry } from '../../lib/index.js';
import type { ExecutionContext } from 'ava';
import type { ClientMetadata } from 'oidc-provider';
import { startOidcServer, type OidcServer } from '../helpers/oidc.js';
import { Client, decodeJwt, manualClock, startApp, type TestApp } from '../helpers/http.js';

export const SECRET = 'mfa-test-secret-0123456789abcdef';
export const PASSWORDS: Record<string, string> = { alice: 'alice-pw', bob: 'bob-pw' };

export interface MfaApp extends TestApp {
  clock: ReturnType<typeof manualClock>;
  factorState: StateStore;
}

/**
 * An app with a `direct` provider (alice, bob) and `mfa` on, its factors in a memory store, its clock by hand;
 * `extra` adds the test's own routes (startApp's hook).
 */
export async function startMfaApp(
  opts: Partial<AuthKoaOptions> = {},
  providers?: ProviderEntry[],
  extra?: (router: Router, auth: AuthKoa) => void,
): Promise<MfaApp> {
  const clock = manualClock();
  const factorState = memoryStateStore({ clock });
  const app = await startApp(
    {
      secret: SECRET,
      clock,
      providers: providers ?? [
        { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw },
      ],
      ...opts,
      mfa: { store: factorState, ...opts.mfa },
    } as AuthKoaOptions,
    extra,
  );
  return Object.assign(app, { clock, factorState });
}

/** Logs `user` in with the direct provider: the answer (a session, or `mfa_required`). */
export function passwordLogin(c: Client, user: string, extra: Record<string, string> = {}): Promise<Response> {
  return c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: PASSWORDS[user], ...extra } });
}

/** The TOTP an authenticator app would show for `otpauthUrl` at `timeMs` (the otpauth library, not ours). */
export function appCode(otpauthUrl: string, timeMs: number): string {
  const totp = OTPAuth.URI.parse(otpauthUrl);
  if (!(totp instanceof OTPAuth.TOTP)) throw new Error('not a TOTP URI');
  return totp.generate({ timestamp: timeMs });
}

/** Sets TOTP up for the client's logged-in user: the URI and the recovery codes. */
export async function enrollTotp(
  app: MfaApp,
  c: Client,
): Promise<{ otpauthUrl: string; secret: string; recoveryCodes: string[] }> {
  const setup = await c.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: c.xsrf() });
  if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  const { otpauthUrl, secret } = (await setup.json()) as { otpauthUrl: string; secret: string };
  const confirm = await c.fetch('/auth/mfa/totp/confirm', {
    method: 'POST',
    headers: c.xsrf(),
    json: { code: appCode(otpauthUrl, app.clock()) },
  });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${await confirm.text()}`);
  const { recoveryCodes } = (await confirm.json()) as { recoveryCodes: string[] };
  // The confirming code's step is spent: the next code a test sends comes from the next step.
  app.clock.advance(30_000);
  return { otpauthUrl, secret, recoveryCodes };
}

/** A client that logged in with a password and has TOTP on (now logged in again, fully). */
export async function enrolledUser(
  app: MfaApp,
  user = 'alice',
): Promise<{ c: Client; otpauthUrl: string; recoveryCodes: string[] }> {
  const c = new Client(app.url);
  const first = await passwordLogin(c, user);
  if (first.status !== 200) throw new Error(`login: ${first.status}`);
  const { otpauthUrl, recoveryCodes } = await enrollTotp(app, c);
  return { c, otpauthUrl, recoveryCodes };
}

/** `POST /auth/mfa/verify` with `body`, the XSRF header included (a step-up needs it; a pending login ignores it). */
export function verify(c: Client, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return c.fetch('/auth/mfa/verify', { method: 'POST', headers: { ...c.xsrf(), ...headers }, json: body });
}

/** Six digits that are the code of no step within `reach` steps of `timeMs`: wrong for any window up to `reach`. */
export function wrongCode(otpauthUrl: string, timeMs: number, reach = 3): string {
  const near = new Set<string>();
  for (let step = -reach; step <= reach; step++) near.add(appCode(otpauthUrl, timeMs + step * 30_000));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

/** A full login of `user` on `c`: the password, then the code of the app's clock now (that step is spent after). */
export async function loginWithTotp(app: MfaApp, c: Client, otpauthUrl: string, user = 'alice'): Promise<Response> {
  const first = await passwordLogin(c, user);
  if (first.status !== 200) throw new Error(`login: ${first.status} ${await first.text()}`);
  return verify(c, { code: appCode(otpauthUrl, app.clock()) });
}

/** The `{"error","code"}` body's code, checking the answer is JSON. */
export async function errorCode(res: Response): Promise<string | undefined> {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not JSON: ${res.status} ${res.headers.get('content-type')}`);
  return ((await res.json()) as { code?: string }).code;
}

/** Where a redirect kind's login asks to go: kept through the second step, as `from` on the page's URL. */
export const FROM = '/after';

/** A first-factor kind as the gate checks drive it: its app, what its sessions must carry, and its login. */
export interface GatedKind {
  app: MfaApp;
  /** The provider name the session's `auth_provider` carries. */
  provider: string;
  /** The kind's `amr` value, first in the session's list. */
  amr: string;
  /** The id of the user this kind's login gives. */
  userId: string;
  /** True when the login ends a navigation (a callback, a link): the gate answers 303 to the page, not JSON. */
  redirects: boolean;
  /** The `from` a redirect kind's login has when it asked for none (Apple lands on its landingURL). */
  landing?: string;
  /** The kind's whole login in `c`, asking to go to `from` (redirect kinds only); its last answer. */
  login(c: Client, from?: string): Promise<Response>;
}

/**
 * The second factor's checks, the same for every kind (issue #33's first acceptance line): TOTP turned on
 * in a session of the kind, then a login of that kind gets only a partial login; the partial opens
 * nothing else; the code starts the kind's session; the partial cannot be used twice; it dies at 5 minutes.
 */
export async function proveGated(t: ExecutionContext, kind: GatedKind): Promise<void> {
  const from = kind.redirects ? FROM : undefined;
  const enrolling = new Client(kind.app.url);
  await kind.login(enrolling, from);
  if (!enrolling.jar.has('JWT')) throw new Error(`the first login of ${kind.provider} gave no session`);
  const { otpauthUrl } = await enrollTotp(kind.app, enrolling);
  const c = new Client(kind.app.url);
  const partial = await expectPartial(t, kind, c, from);
  await expectPartialOpensNothing(t, kind.app, partial);
  await expectSecondStep(t, kind, c, otpauthUrl);
  await expectNoReplay(t, kind.app, partial, otpauthUrl);
  await expectExpiry(t, kind, otpauthUrl);
}

/**
 * A login of the kind (asking for `from`): no session cookie, the partial one (its value), and the JSON
 * answer or the 303 to the page, with the permitted `from` kept (none when none was asked, but Apple's landing).
 */
async function expectPartial(t: ExecutionContext, kind: GatedKind, c: Client, from?: string): Promise<string> {
  const res = await kind.login(c, from);
  if (kind.redirects) {
    t.is(res.status, 303, 'a navigation login is sent to the second-step page');
    const to = new URL(res.headers.get('location') ?? '', kind.app.url);
    t.is(to.origin + to.pathname, `${kind.app.url}/auth/mfa/page`);
    const kept = from ?? kind.landing;
    t.deepEqual([...to.searchParams], kept ? [['from', kept]] : [], 'the permitted from is kept');
  } else {
    t.is(res.status, 200, 'a JSON login answers that a second step is needed');
    t.deepEqual(await res.json(), { mfa_required: true, factors: ['totp', 'recovery'] });
  }
  t.deepEqual(
    c.lastCookies.filter((x) => x.name === 'JWT' || x.name === 'XSRF-TOKEN'),
    [],
    'no session cookies',
  );
  const cookie = c.cookie('JWT-MFA');
  if (!cookie?.value)
    throw new Error(`no partial login cookie: ${res.status} ${c.lastCookies.map((x) => x.raw).join(' | ')}`);
  t.like(cookie.attrs, { path: '/auth/mfa', httponly: true, samesite: 'Lax', 'max-age': '300' });
  return cookie.value;
}

/** A session cookie with a value among `res`'s Set-Cookie lines (a cleared one does not count). */
function setsSession(res: Response): boolean {
  return res.headers.getSetCookie().some((raw) => /^JWT=[^;]/.test(raw));
}

/** The ways a request carries a session `token` to `path`: the JWT cookie (its jti as the XSRF header), `X-JWT`, `?token=`. */
function carried(path: string, token: string): Array<[string, string, Record<string, string>]> {
  const { jti } = decodeJwt(token);
  return [
    ['as the JWT cookie with its jti as XSRF', path, { cookie: `JWT=${token}`, 'X-XSRF-TOKEN': jti }],
    ['as X-JWT', path, { 'X-JWT': token }],
    ['as ?token=', `${path}?token=${encodeURIComponent(token)}`, {}],
  ];
}

/** The partial, presented every way a session travels, and its own cookie alone, opens neither /auth/user nor an `auth` route. */
async function expectPartialOpensNothing(t: ExecutionContext, app: MfaApp, partial: string): Promise<void> {
  // The partial is live: the second-step routes take it (so the refusals below are the partial's, not a dead token's).
  const live = await fetch(`${app.url}/auth/mfa`, { headers: { cookie: `JWT-MFA=${partial}` } });
  t.is(live.status, 200, 'GET /auth/mfa takes the partial');
  for (const path of ['/auth/user', '/private']) {
    for (const [how, url, headers] of [
      ...carried(path, partial),
      ['in its own cookie', path, { cookie: `JWT-MFA=${partial}` }] as const,
    ]) {
      const res = await fetch(app.url + url, { headers, redirect: 'manual' });
      t.is(res.status, 401, `${path} with the partial ${how}`);
      t.false(setsSession(res), `${path} with the partial ${how}: no session cookie`);
    }
  }
}

/** The code ends the login: the kind's session (its provider, its user, amr kind + otp + mfa), the partial cookie cleared. */
async function expectSecondStep(t: ExecutionContext, kind: GatedKind, c: Client, otpauthUrl: string): Promise<void> {
  const { app } = kind;
  const res = await c.fetch('/auth/mfa/verify', { method: 'POST', json: { code: appCode(otpauthUrl, app.clock()) } });
  if (kind.redirects) {
    t.is(res.status, 303, await res.clone().text());
    t.is(res.headers.get('location'), `${app.url}${FROM}`, 'on to the from the login asked for');
  } else {
    t.is(res.status, 200, await res.clone().text());
    t.is(((await res.json()) as { id: string }).id, kind.userId);
  }
  t.is(c.cookie('JWT-MFA')?.attrs['max-age'], '0', 'the partial cookie is cleared');
  const jwt = c.jar.get('JWT');
  if (!jwt) throw new Error('no session cookie after the second step');
  const claims = decodeJwt(jwt);
  t.deepEqual(claims.amr, [kind.amr, 'otp', 'mfa']);
  t.deepEqual(claims.auth_provider, { name: kind.provider });
  t.is(claims.user.id, kind.userId);
  t.is(claims.auth_time, Math.floor(app.clock() / 1000));
  await expectSessionOpens(t, app, jwt, kind.userId);
}

/** The session opens what the partial could not, carried the same ways: so those requests were well formed. */
async function expectSessionOpens(t: ExecutionContext, app: MfaApp, session: string, userId: string): Promise<void> {
  for (const path of ['/auth/user', '/private']) {
    for (const [how, url, headers] of carried(path, session)) {
      const res = await fetch(app.url + url, { headers, redirect: 'manual' });
      t.is(res.status, path === '/private' ? 201 : 200, `${path} with the session ${how}`);
      const body = (await res.json()) as { id?: string; user?: { id: string } };
      t.is(body.user?.id ?? body.id, userId, `${path} with the session ${how}: the kind's user`);
    }
  }
}

/** The same partial again, with a good code of the next step: 401 `mfa_session_invalid`, no session. */
async function expectNoReplay(t: ExecutionContext, app: MfaApp, partial: string, otpauthUrl: string): Promise<void> {
  app.clock.advance(30_000);
  const res = await fetch(`${app.url}/auth/mfa/verify`, {
    method: 'POST',
    headers: { cookie: `JWT-MFA=${partial}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: appCode(otpauthUrl, app.clock()) }),
    redirect: 'manual',
  });
  t.is(res.status, 401, 'a spent partial');
  t.is(((await res.json()) as { code: string }).code, 'mfa_session_invalid');
  t.false(setsSession(res));
}

/**
 * A partial (of a login that asked for no `from`: still sent to the page when it is a navigation) is
 * taken at 4:59 and refused past 5:00 (401 `mfa_session_expired`), by the second step too, and no
 * refresh revives it.
 */
async function expectExpiry(t: ExecutionContext, kind: GatedKind, otpauthUrl: string): Promise<void> {
  const { app } = kind;
  const c = new Client(app.url);
  const partial = await expectPartial(t, kind, c);
  const status = () => fetch(`${app.url}/auth/mfa`, { headers: { cookie: `JWT-MFA=${partial}` } });
  app.clock.advance(299_000);
  t.is((await status()).status, 200, 'still live at 4:59');
  app.clock.advance(2_000);
  const late = await status();
  t.is(late.status, 401, 'expired at 5:01');
  t.is(((await late.json()) as { code: string }).code, 'mfa_session_expired');
  const res = await c.fetch('/auth/mfa/verify', { method: 'POST', json: { code: appCode(otpauthUrl, app.clock()) } });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'mfa_session_expired');
  t.false(c.jar.has('JWT'));
  const refresh = await fetch(`${app.url}/auth/user`, {
    headers: { cookie: `JWT=${partial}`, 'X-XSRF-TOKEN': decodeJwt(partial).jti },
  });
  t.is(refresh.status, 401, 'an expired partial as the JWT cookie is not refreshed into a session');
  t.false(setsSession(refresh));
}

/** A logger that keeps quiet. */
export const quiet = { info() {}, warn() {}, error() {} };

/** An app with `providers` (its second factor on, nobody enrolled), stopped at teardown. */
export async function kindApp(t: ExecutionContext, providers: unknown[]): Promise<MfaApp> {
  const app = await startMfaApp({ logger: quiet }, providers as ProviderEntry[]);
  t.teardown(() => app.close());
  return app;
}

/** oidc-provider on 127.0.0.1, stopped at teardown. */
export async function oidcPeer(t: ExecutionContext): Promise<OidcServer> {
  const idp = await startOidcServer();
  t.teardown(() => idp.close());
  return idp;
}

/** The oidc-provider client of provider `name` in `app`. */
export function oidcClient(app: MfaApp, name: string): ClientMetadata {
  return {
    client_id: `${name}-client`,
    client_secret: `${name}-secret`,
    redirect_uris: [`${app.url}/auth/${name}/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

/** An `oauth2` entry named `corp2` against the oidc-provider at `issuer` (its client: oidcClient(app, 'corp2')). */
export function oauth2Entry(issuer: string) {
  return {
    kind: 'oauth2',
    name: 'corp2',
    client: { cid: 'corp2-client', csecret: 'corp2-secret' },
    endpoint: { authURL: `${issuer}/auth`, tokenURL: `${issuer}/token` },
    infoURL: `${issuer}/me`,
    scopes: ['openid', 'profile'],
    mapUser: (d: Record<string, string>) => ({ id: d.sub!, name: d.name!, picture: '' }),
  };
}
