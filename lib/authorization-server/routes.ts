import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../errors.js';
import { readJSON } from '../http/body.js';
import { readFormParams } from '../providers/oauth2-server/http.js';
import { authorize } from './authorize.js';
import { connectedApps } from './connected-apps.js';
import { decide } from './consent.js';
import { ANY_SITE, SITE_DOCUMENTS } from './places.js';
import { loginPage } from './login-page.js';
import { isIssuerDocument, serverMetadata } from './metadata.js';
import type { ServerParts } from './parts.js';
import { revokeEndpoint } from './revoke.js';
import { tokenEndpoint } from './token.js';
import { userInfoEndpoint } from './userinfo.js';

/**
 * The server's routes under `<authRoutePath>/oauth2/`, and its metadata at the site root. The token, revocation,
 * registration and userinfo endpoints are called by other sites' code with credentials of their own
 * (FeatureModule.anySite), and answer browsers of any origin (CORS, no cookies); the authorization request and the
 * consent form act on the user's session and are the app's own pages.
 */

export function serverRoutes(p: ServerParts, base: string): Middleware {
  return async function authorizationServerRoutes(ctx: Context, next: Next) {
    const path = ctx.path.slice(base.length);
    if (ANY_SITE.includes(`/oauth2${path}`)) {
      ctx.set('Access-Control-Allow-Origin', '*');
      if (ctx.method === 'OPTIONS') return preflight(ctx, path === '/userinfo' ? 'GET, POST' : 'POST');
    }
    switch (path) {
      case '/authorize':
        if (ctx.method === 'POST') return postedRequest(p, ctx);
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
          throw new AuthError('method_not_allowed', 'the authorization request is a GET or a POST');
        return authorize(p, ctx);
      case '/consent':
        return post(ctx, () => decide(p, ctx));
      case '/token':
        return post(ctx, () => tokenEndpoint(p, ctx));
      case '/revoke':
        return post(ctx, () => revokeEndpoint(p, ctx));
      case '/register':
        return post(ctx, () => register(p, ctx));
      case '/userinfo':
        return userInfoEndpoint(p, ctx);
      case '/login':
        return loginPage(p, ctx);
      default:
        if (path === '/grants' || path.startsWith('/grants/'))
          return connectedApps(p, ctx, path.slice('/grants'.length));
        await next();
    }
  };
}

/** The metadata documents at the site root; any other path under their names is the application's. */
export function siteRoutes(p: ServerParts): Middleware {
  const issuerPath = new URL(p.places.issuer).pathname.replace(/\/$/, '');
  return async function authorizationServerMetadata(ctx: Context, next: Next) {
    const name = SITE_DOCUMENTS.find((n) => isIssuerDocument(ctx.path, n, issuerPath));
    if (!name || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(serverMetadata(p.config, p.places));
  };
}

/** RFC 7591: the client's metadata in a JSON body; the directory decides (clients/). */
async function register(p: ServerParts, ctx: Context): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const body = await readJSON(ctx, 16 * 1024).catch(() => undefined);
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const answer = await p.clients.register(body, { address: ctx.ip, ...(bearer ? { bearer } : {}) });
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
  ctx.status = answer.status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(answer.body);
}

/**
 * An authorization request sent as a form (OpenID Connect Core §3.1.2.1): the same request as a GET, every value kept
 * (a repeated one is refused there as in a query), so one code path reads and checks it.
 */
async function postedRequest(p: ServerParts, ctx: Context): Promise<void> {
  const posted = await readFormParams(ctx, 16 * 1024);
  if (!posted.has('client_id')) {
    ctx.status = 400;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ error: 'invalid_request', error_description: 'a form of the request, with client_id' });
    return;
  }
  ctx.status = 303;
  ctx.redirect(`${p.places.authBase}/oauth2/authorize?${posted}`);
}

async function post(ctx: Context, handle: () => Promise<void>): Promise<void> {
  if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'POST only');
  await handle();
}

/** A browser's CORS preflight for the endpoints other sites call: any origin, no credentials. */
function preflight(ctx: Context, methods: string): void {
  ctx.set('Access-Control-Allow-Methods', `${methods}, OPTIONS`);
  ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
  ctx.set('Access-Control-Max-Age', '600');
  ctx.status = 204;
}
