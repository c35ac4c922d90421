import { retryAfterSeconds } from '../../http/respond.js';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Context } from 'koa';
import session from 'koa-session';
import { randomId } from '../../session/claims.js';
import { identicon } from '../../avatar/identicon.js';
import { resolveServerOptions, type OAuth2Server, type OAuth2ServerOptions, type ServerUser } from './options.js';
import { FIELDS, pageCSP } from './page.js';
import { Expiring, memorySessionStore } from './store.js';
import { safeEqual } from '../../util/safe-equal.js';
import type { Attempt } from '../../state/throttle.js';
import { basicCredentials, json, readForm, redirect, singleParams, text } from './http.js';

export type { LoginPage, LoginPageHandler } from './page.js';
export type { OAuth2Server, OAuth2ServerClient, OAuth2ServerOptions, ServerChecker, ServerUser } from './options.js';

/**
 * A local OAuth2 authorization server an application runs beside itself (reference §5.4): users sign
 * in on its login page with a password the application checks, and registered clients — authkoa's
 * own `kind: 'server'` provider, or any other OAuth2 client — get them through the authorization-code
 * grant with S256 PKCE. It keeps codes, tokens and sign-in sessions in memory: one process, one
 * server, state lost on restart (a signed-in user simply signs in again).
 */

interface Grant {
  clientId: string;
  redirectURI: string;
  challenge?: string;
  scope?: string;
  user: ServerUser;
}

const MAX_FORM = 16 * 1024;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Starts the server; resolves once it listens. Bad options throw a TypeError naming the option. */
export async function startOAuth2Server(options: OAuth2ServerOptions): Promise<OAuth2Server> {
  const o = resolveServerOptions(options);
  const log = o.logger;
  const codes = new Expiring<Grant>(o.codeTTL, o.clock);
  // A code presented twice means it leaked: the token issued for it is revoked (RFC 6749 §4.1.2).
  const spent = new Expiring<string>(o.codeTTL * 10, o.clock);
  const tokens = new Expiring<{ user: ServerUser; clientId: string; scope?: string }>(o.tokenTTL, o.clock);
  let base = '';
  let basePath = '';

  const app = new Koa();
  app.keys = o.sessionKeys;
  // Behind a TLS-terminating proxy (an https url), X-Forwarded-Proto tells koa-session the cookie may be Secure.
  app.proxy = o.url.protocol === 'https:';
  app.silent = true;
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the login form's post.
    ctx.set('Referrer-Policy', 'same-origin');
    try {
      await next();
    } catch (err) {
      log.error(`oauth2 server: ${ctx.method} ${ctx.path}: ${(err as Error).message}`);
      text(ctx, (err as { status?: number }).status === 413 ? 413 : 500, 'internal error');
    }
  });
  app.use(
    session(
      { key: 'authkoa-oauth2.sid', maxAge: o.sessionTTL, httpOnly: true, sameSite: 'lax', signed: true, store: memorySessionStore(o.clock) },
      app,
    ),
  );
  app.use(async (ctx) => {
    const route = ctx.path.startsWith(basePath) ? ctx.path.slice(basePath.length) : '';
    switch (route) {
      case '/authorize':
        return authorize(ctx);
      case '/access_token':
        return ctx.method === 'POST' ? accessToken(ctx) : text(ctx, 405, 'POST only');
      case '/user':
        return userInfo(ctx);
      case '/avatar':
        ctx.type = 'image/png';
        ctx.set('Cache-Control', 'max-age=3600');
        ctx.body = identicon(String(ctx.query.user ?? ''), 120);
        return;
      case '/logout':
        (ctx as SessionContext).session = null;
        return text(ctx, 200, 'signed out');
      default:
        return text(ctx, 404, 'unknown route');
    }
  });

  async function authorize(ctx: Context): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'POST') return text(ctx, 405, 'GET or POST only');
    const q = singleParams(new URLSearchParams(ctx.querystring));
    if (!q) return text(ctx, 400, 'a parameter is repeated');
    // Until client and redirect URI are known good, errors are shown here, never redirected (RFC 6749 §4.1.2.1).
    const client = o.clients.get(q.client_id ?? '');
    if (!client) return text(ctx, 400, 'unknown client_id');
    const redirectURI = q.redirect_uri ?? '';
    if (!client.redirectURIs.includes(redirectURI)) return text(ctx, 400, 'redirect_uri is not registered for this client');
    const back = (error: string, description: string) => redirect(ctx, redirectURI, { error, error_description: description, state: q.state });
    if (q.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
    const challenge = q.code_challenge;
    if (challenge !== undefined || o.requirePKCE) {
      if (!challenge || (q.code_challenge_method ?? 'plain') !== 'S256' || !CHALLENGE.test(challenge)) {
        return back('invalid_request', 'an S256 code_challenge is required');
      }
    }
    const sess = (ctx as SessionContext).session!;
    const render = async (status: number, error?: string, username?: string) => {
      sess.csrf ??= randomId();
      ctx.status = status;
      ctx.set('Content-Security-Policy', pageCSP(new URL(redirectURI).origin));
      ctx.set('X-Frame-Options', 'DENY');
      await o.page(ctx, { action: `${basePath}/authorize?${ctx.querystring}`, csrfToken: sess.csrf, clientId: client.id, error, username });
    };

    if (ctx.method === 'POST') {
      const form = await readForm(ctx, MAX_FORM);
      const origin = ctx.get('origin');
      // A cross-site post carries no session cookie (SameSite=Lax) and no token; the Origin check is a second lock.
      // (Koa 3's ctx.origin echoes the Origin header, so the request's own origin is built from protocol and host.)
      const foreign = origin !== '' && origin !== 'null' && origin !== new URL(base).origin && origin !== `${ctx.protocol}://${ctx.host}`;
      if (!sess.csrf || !safeEqual(form[FIELDS.csrf] ?? '', sess.csrf) || foreign) {
        sess.csrf = randomId();
        return render(403, 'The sign-in form expired or did not come from this page. Please try again.');
      }
      const username = (form[FIELDS.username] ?? '').trim();
      const password = form[FIELDS.password] ?? '';
      if (!username || !password || username.length > 256 || password.length > 1024) return render(200, 'Enter your user name and password.', username.slice(0, 256));
      const unavailable = (err: unknown) => {
        log.error(`oauth2 server: sign-in throttle failed: ${(err as Error)?.message ?? err}`);
        return render(503, 'Sign-in is unavailable right now. Please try again later.', username);
      };
      let attempt: Attempt | undefined;
      try {
        attempt = await o.throttle?.attempt(username, ctx.ip);
      } catch (err) {
        return unavailable(err);
      }
      // Reserved before the checker runs (parallel guesses cannot all pass one look at the count); locked
      // out: refused without a check and not counted, so the lock-out ends on time.
      if (attempt?.wait !== undefined) {
        ctx.set('Retry-After', retryAfterSeconds(attempt.wait));
        return render(429, 'Too many failed attempts. Wait a few minutes and try again.', username);
      }
      let user: ReturnType<typeof toUser>;
      try {
        user = toUser(username, await o.checker(username, password));
      } catch (err) {
        await attempt?.abandoned().catch(() => {});
        throw err;
      }
      try {
        await (user ? attempt?.succeeded() : attempt?.failed());
      } catch (err) {
        return unavailable(err);
      }
      if (!user) {
        log.info(`oauth2 server: sign-in refused for ${JSON.stringify(username)}`);
        return render(200, 'Wrong user name or password.', username);
      }
      // A new session id at sign-in: an id planted before it (session fixation) is worth nothing.
      sess.user = user;
      sess.csrf = randomId();
      await sess.regenerate();
      log.info(`oauth2 server: ${JSON.stringify(user.id)} signed in`);
      // Post/redirect/get: the code is issued by a GET, so reloading never re-posts the password.
      ctx.status = 303;
      ctx.redirect(`${basePath}/authorize?${ctx.querystring}`);
      return;
    }

    if (!sess.user) return render(200);
    const code = randomId();
    codes.set(code, { clientId: client.id, redirectURI, challenge, scope: q.scope, user: sess.user });
    redirect(ctx, redirectURI, { code, state: q.state });
  }

  async function accessToken(ctx: Context): Promise<void> {
    const form = await readForm(ctx, MAX_FORM);
    const fail = (status: number, error: string, description?: string) => {
      if (status === 401) ctx.set('WWW-Authenticate', 'Basic realm="oauth2"');
      json(ctx, status, { error, ...(description ? { error_description: description } : {}) });
    };
    const basic = basicCredentials(ctx.get('authorization'));
    const clientId = basic?.id ?? form.client_id ?? '';
    const client = o.clients.get(clientId);
    if (!client) return fail(401, 'invalid_client');
    if (client.secret !== undefined && !safeEqual(basic?.secret ?? form.client_secret ?? '', client.secret)) return fail(401, 'invalid_client');
    if (form.grant_type !== 'authorization_code') return fail(400, 'unsupported_grant_type');
    const code = form.code ?? '';
    const grant = codes.take(code);
    if (!grant) {
      const issued = spent.take(code);
      if (issued) {
        tokens.delete(issued);
        log.warn('oauth2 server: an authorization code was used twice; the token issued for it is revoked');
      }
      return fail(400, 'invalid_grant', 'code is unknown, expired or already used');
    }
    if (grant.clientId !== client.id || form.redirect_uri !== grant.redirectURI) return fail(400, 'invalid_grant', 'code was issued to another client or redirect_uri');
    const verifier = form.code_verifier;
    if (grant.challenge !== undefined || verifier !== undefined) {
      const expected = grant.challenge ?? '';
      const got = verifier && VERIFIER.test(verifier) ? createHash('sha256').update(verifier).digest('base64url') : '';
      if (!got || !safeEqual(got, expected)) return fail(400, 'invalid_grant', 'code_verifier does not match');
    }
    const token = randomId() + randomId();
    tokens.set(token, { user: grant.user, clientId: client.id, scope: grant.scope });
    spent.set(code, token);
    ctx.set('Pragma', 'no-cache');
    json(ctx, 200, { access_token: token, token_type: 'Bearer', expires_in: Math.floor(o.tokenTTL / 1000), ...(grant.scope ? { scope: grant.scope } : {}) });
  }

  function userInfo(ctx: Context): void {
    const m = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
    const entry = m ? tokens.get(m[1]!) : undefined;
    if (!entry) {
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
      return json(ctx, 401, { error: 'invalid_token' });
    }
    const u = entry.user;
    json(ctx, 200, {
      id: u.id,
      name: u.name || u.id,
      picture: u.picture || `${base}/avatar?user=${encodeURIComponent(u.id)}`,
      ...(u.email ? { email: u.email } : {}),
    });
  }

  const server = http.createServer(app.callback());
  server.listen(o.port, o.host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  const port = (server.address() as AddressInfo).port;
  const url = new URL(o.url.href);
  if (url.port === '0') url.port = String(port);
  base = url.href.replace(/\/+$/, '');
  basePath = url.pathname.replace(/\/+$/, '');
  log.info(`oauth2 server listening on ${o.host}:${port}, public URL ${base}`);
  let closing: Promise<void> | undefined;
  return {
    url: base,
    port,
    endpoints: () => ({ authURL: `${base}/authorize`, tokenURL: `${base}/access_token`, infoURL: `${base}/user` }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

interface Sess {
  user?: ServerUser;
  csrf?: string;
  regenerate(): Promise<void>;
}
type SessionContext = Context & { session: Sess | null };

function toUser(name: string, result: boolean | ServerUser): ServerUser | undefined {
  if (result === true) return { id: name, name };
  if (!result || typeof result !== 'object' || typeof result.id !== 'string' || !result.id) return undefined;
  const pick = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { id: result.id, name: pick(result.name), email: pick(result.email), picture: pick(result.picture) };
}
