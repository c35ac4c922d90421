import Koa, { type Context, type Next } from 'koa';
import session from 'koa-session';
import { randomId } from '../../session/claims.js';
import { identicon } from '../../avatar/identicon.js';
import type { Logger } from '../../logger.js';
import {
  resolveServerOptions,
  type LocalServer,
  type OAuth2Server,
  type OAuth2ServerOptions,
  type ServerUser,
} from './options.js';
import { memorySessionStore } from './store.js';
import { json, text } from './http.js';
import { GrantBook } from './grants.js';
import { listen } from './listener.js';
import { signOut } from './sign-in.js';
import { authorize } from './authorize.js';
import { openIDRoute } from './openid.js';
import { tokenEndpoint } from './token.js';
import { defaultClaims } from './claims.js';
import { idTokenKeys } from './id-token.js';
import { BackChannelLogout } from './backchannel.js';

export type { LoginPage, LoginPageHandler } from './page.js';
export type { OAuth2Server, OAuth2ServerClient, OAuth2ServerOptions, ServerChecker, ServerUser } from './options.js';

/**
 * A local OAuth2 authorization server an application runs beside itself, like the original's: users sign
 * in on its login page with a password the application checks, and registered clients — authkoa's
 * own `kind: 'server'` provider, or any other OAuth2 client — get them through the authorization-code
 * grant with S256 PKCE. It keeps codes, tokens and sign-in sessions in memory: one process, one
 * server, state lost on restart (a signed-in user simply signs in again). Given signing keys it is
 * also an OpenID provider (openid.ts).
 */

/** Starts the server; resolves once it listens. Bad options throw a TypeError naming the option. */
export async function startOAuth2Server(options: OAuth2ServerOptions): Promise<OAuth2Server> {
  const o = resolveServerOptions(options);
  const grants = new GrantBook<ServerUser>({
    codeTTL: o.codeTTL,
    tokenTTL: o.tokenTTL,
    refreshTTL: o.refreshTokenTTL,
    clock: o.clock,
    strict: true,
    tokenId: () => randomId() + randomId(),
    log: o.logger,
    label: 'oauth2 server',
  });
  const ids = o.signer ? await idTokenKeys(o.signer, o.rsaKey) : undefined;
  const claims = o.claims ?? defaultClaims('');
  const srv: LocalServer = { o, grants, base: '', basePath: '', ids, backchannel: undefined, claims };
  if (ids) {
    const parts = { clients: o.clients, keys: ids, sessionTTL: o.sessionTTL, clock: o.clock, logger: o.logger };
    srv.backchannel = new BackChannelLogout({ ...parts, issuer: () => srv.base });
  }
  const handle = buildApp(srv).callback();
  // Koa's handler answers its own failures (ctx.onerror): its promise has nothing left to report.
  const listener = await listen((req, res) => void handle(req, res), o.port, o.host);
  const url = new URL(o.url.href);
  if (url.port === '0') url.port = String(listener.port);
  const base = url.href.replace(/\/+$/, '');
  srv.base = base;
  srv.basePath = url.pathname.replace(/\/+$/, '');
  srv.claims = o.claims ?? defaultClaims(base);
  o.logger.info(`oauth2 server listening on ${o.host}:${listener.port}, public URL ${base}`);
  return {
    url: base,
    port: listener.port,
    endpoints: () => ({ authURL: `${base}/authorize`, tokenURL: `${base}/access_token`, infoURL: `${base}/user` }),
    close: () => {
      srv.backchannel?.close();
      return listener.close();
    },
  };
}

/** The Koa app: common headers and errors, then the sign-in session, then the routes. */
function buildApp(srv: LocalServer): Koa {
  const { o } = srv;
  const app = new Koa();
  app.keys = o.sessionKeys;
  // Behind a TLS-terminating proxy (an https url), X-Forwarded-Proto tells koa-session the cookie may be Secure.
  app.proxy = o.url.protocol === 'https:';
  app.silent = true;
  app.use(guard(o.logger));
  app.use(
    session(
      {
        key: 'authkoa-oauth2.sid',
        maxAge: o.sessionTTL,
        httpOnly: true,
        sameSite: 'lax',
        signed: true,
        store: memorySessionStore(o.clock),
      },
      app,
    ),
  );
  app.use((ctx) => route(srv, ctx));
  return app;
}

/** Headers every answer carries; a failure is answered in plain text: 413 for a body too large, else 500 (logged). */
function guard(log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the login form's post.
    ctx.set('Referrer-Policy', 'same-origin');
    try {
      await next();
    } catch (err) {
      // A body over the cap is the client's doing: answered as such, and not logged as a server failure.
      if ((err as { status?: number }).status === 413) return text(ctx, 413, 'request body too large');
      log.error(`oauth2 server: ${ctx.method} ${ctx.path}: ${(err as Error).message}`);
      text(ctx, 500, 'internal error');
    }
  };
}

async function route(srv: LocalServer, ctx: Context): Promise<void> {
  const path = ctx.path.startsWith(srv.basePath) ? ctx.path.slice(srv.basePath.length) : '';
  if (srv.ids && (await openIDRoute(srv, srv.ids, path, ctx))) return;
  switch (path) {
    case '/authorize':
      return authorize(srv, ctx);
    case '/access_token':
      return ctx.method === 'POST' ? tokenEndpoint(srv, ctx) : text(ctx, 405, 'POST only');
    case '/user':
      return userInfo(srv, ctx);
    case '/avatar':
      ctx.type = 'image/png';
      ctx.set('Cache-Control', 'max-age=3600');
      ctx.body = identicon(String(ctx.query.user ?? ''), 120);
      return;
    case '/logout':
      // A plain server's sign-out, as ever; an OpenID provider's /logout is RP-initiated logout (logout.ts).
      signOut(ctx);
      return text(ctx, 200, 'signed out');
    default:
      return text(ctx, 404, 'unknown route');
  }
}

/** The signed-in user a token stands for; a user without a name or picture gets the id and its identicon. */
function userInfo(srv: LocalServer, ctx: Context): void {
  const grant = srv.grants.bearer(ctx.get('authorization'));
  if (!grant) {
    ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    return json(ctx, 401, { error: 'invalid_token' });
  }
  const u = grant.user;
  json(ctx, 200, {
    id: u.id,
    name: u.name || u.id,
    picture: u.picture || `${srv.base}/avatar?user=${encodeURIComponent(u.id)}`,
    ...(u.email ? { email: u.email } : {}),
  });
}
