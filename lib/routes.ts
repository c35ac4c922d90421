import Router from '@koa/router';
import type { LoginStart } from './features/contract.js';
import type { Context } from 'koa';
import { AuthError } from './errors.js';
import { crossSite } from './http/origin.js';
import { onProviderRoute, reportError, writeJSON } from './http/respond.js';
import { getUserInfo, type AuthMiddleware } from './middleware.js';
import type { Logger } from './logger.js';
import type { ProviderRegistry } from './providers/core/resolve.js';
import type { Provider } from './providers/core/contract.js';
import type { Claims } from './session/claims.js';
import { endSession } from './session/login.js';
import type { TokenService } from './session/token-service.js';
import type { FailedLogins } from './events/session-events.js';
import type { Tracing } from './telemetry/types.js';

// The routes under `<authRoutePath>`: list, user, status, logout, and each provider's login,
// callback, logout and own actions.

/** Runs before every login step; throw an AuthError to refuse the login. */
export type PreAuthHook = (ctx: Context, provider: string) => void | Promise<void>;

/** The options the auth routes read. */
export interface RoutesConfig {
  authRoutePath: string;
  /** The origin of the public URL: a POST from elsewhere is cross-site. */
  origin: string;
  preAuthHook: PreAuthHook | undefined;
  /** Logout answers 503 when the state store could not record the ended token. */
  strictRevocation: boolean;
  logger: Logger;
}

/** A provider's own action by name, else its `*` action (which reads the name from the path), else 404. */
function providerAction(ctx: Context, provider: Provider, name: string): Promise<void> {
  const actions = provider.actions;
  const action =
    actions && Object.hasOwn(actions, name)
      ? actions[name]
      : actions && Object.hasOwn(actions, '*')
        ? actions['*']
        : undefined;
  if (!action) throw new AuthError('not_found', 'no such provider route');
  return action(ctx);
}

/**
 * Login CSRF, one rule for every provider: a POST or DELETE that a browser says comes from another site
 * (see crossSite()) is refused before the provider sees it, unless the provider names the route as
 * cross-site by protocol. Such a request would log the visitor's browser into an account of the
 * attacker's choosing (a passkey assertion, a confirmation link, a password of the attacker's), or
 * change the credentials of the visitor's account.
 */
function refuseCrossSite(ctx: Context, origin: string, provider: Provider, route: string): void {
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return;
  if (provider.crossSite?.includes(route)) return;
  if (crossSite(ctx, origin)) throw new AuthError('origin_mismatch', 'the request must come from this site');
}

/** The answer for a path under the auth prefix that no route takes. */
export function unknownRoute(ctx: Context, prefix: string): never {
  const segments = ctx.path.slice(prefix.length).split('/').filter(Boolean);
  if (segments.length === 2) throw new AuthError('unknown_provider', `provider ${segments[0]} not supported`);
  throw new AuthError('not_found', 'no such auth route');
}

/**
 * Logout ends the token itself, not only the cookies: its id is recorded as ended until the token could
 * no longer be refreshed, so a copy (a logged X-JWT, a cookie taken before) stops working too.
 * A state store that is away: the cookies are cleared all the same (the user asked to leave this
 * browser), and the failure is reported. Under strictRevocation the answer is then 503
 * `state_store_unavailable`: that mode promises an ended session stops at once everywhere, and a copy
 * of this token would go on working, so "logged out" would be untrue. Without it, an ended token only
 * ever stopped at its next refresh: the logout answers 200 as before.
 */
function tokenEnder(o: RoutesConfig, tokens: TokenService, endToken: EndToken): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const claims = await tokens.presented(ctx);
    if (!claims?.user || claims.handshake) return;
    try {
      await endToken(claims, ctx);
    } catch (err) {
      const message = 'the session could not be ended: the state store is unavailable';
      const e = new AuthError('state_store_unavailable', message, { cause: err });
      if (o.strictRevocation) {
        tokens.reset(ctx);
        throw e;
      }
      reportError(ctx, e, o.logger);
    }
  };
}

/** The provider a route names; 400 when none has that name. */
function providerNamed(ctx: Context, providers: ProviderRegistry, name: string): Provider {
  const provider = providers.get(name);
  if (!provider) throw new AuthError('unknown_provider', `provider ${name} not supported`);
  onProviderRoute(ctx, provider.name); // what is logged about this request names the provider
  return provider;
}

/**
 * A provider's one-segment route: login and callback (after the preAuthHook), logout (which ends the token first), else
 * its own action.
 */
async function providerRoute(
  ctx: Context,
  o: StepConfig,
  provider: Provider,
  action: string,
  endToken: (ctx: Context) => Promise<void>,
): Promise<void> {
  // DELETE only reaches a provider's own actions (removing a passkey); the login routes are GET and POST.
  if (ctx.method === 'DELETE' && !['login', 'callback', 'logout'].includes(action))
    return providerAction(ctx, provider, action);
  if (ctx.method !== 'GET' && ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'method not allowed');
  switch (action) {
    case 'login':
    case 'callback':
      return loginStep(ctx, o, provider, action);
    case 'logout':
      await endToken(ctx);
      return provider.logout(ctx);
    default:
      return providerAction(ctx, provider, action);
  }
}

/** A login or callback step, after the preAuthHook; a refusal is told as `login_failed`, then answered. */
async function loginStep(ctx: Context, o: StepConfig, provider: Provider, action: 'login' | 'callback'): Promise<void> {
  if (!o.tracing.on) return step(ctx, o, provider, action);
  const attributes = { 'authkoa.provider': provider.name, 'authkoa.kind': provider.kind ?? 'custom' };
  return o.tracing.span(`authkoa.${action}`, attributes, () => step(ctx, o, provider, action));
}

/** What a provider route works with: the options, and where its refusals and spans go. */
type StepConfig = RoutesConfig & { failed: FailedLogins; tracing: Tracing; loginStarts: LoginStart };

async function step(ctx: Context, o: StepConfig, provider: Provider, action: 'login' | 'callback'): Promise<void> {
  try {
    if (action === 'callback' && !provider.callback) throw new AuthError('not_found', 'provider has no callback');
    if (o.preAuthHook) await o.preAuthHook(ctx, provider.name);
    if (action === 'login') await o.loginStarts(ctx, provider.name);
    return await (action === 'login' ? provider.login(ctx) : provider.callback!(ctx));
  } catch (err) {
    o.failed.tell(ctx, provider.name, provider.kind ?? 'custom', err);
    throw err;
  }
}

/** Ends a logged-out token and its session (revocation and the session list), for the request that asked. */
export type EndToken = (claims: Claims, ctx: Context) => Promise<void>;

/** What the auth routes work with besides their options. */
export interface AuthRouterParts {
  tokens: TokenService;
  providers: ProviderRegistry;
  middleware: AuthMiddleware;
  /** Where refused logins are told (`login_failed`). */
  failed: FailedLogins;
  /** Login and callback steps as spans, when the instance has OpenTelemetry. */
  tracing: Tracing;
  /** What the features make of a login's start (FeatureSet.loginStarts: `?link=1`). */
  loginStarts: LoginStart;
}

/** The auth routes as the service calls them: `<authRoutePath>/*`, or the unknown-route answer. */
export type AuthRoute = (ctx: Context) => Promise<unknown>;

/**
 * buildAuthRouter's router as one handler. The service imports this module while it starts: @koa/router
 * takes longer to load than Koa itself, and a bare import of the package need not pay for it.
 */
export function authRoute(o: RoutesConfig, parts: AuthRouterParts, end: EndToken, mount: (r: Router) => void) {
  const routes = buildAuthRouter(o, parts, end, mount).routes();
  // Promise.resolve of the router's own promise is that promise: it only types the router's `any`.
  const handle: AuthRoute = (ctx) =>
    Promise.resolve<unknown>(routes(ctx as never, () => unknownRoute(ctx, o.authRoutePath)));
  return handle;
}

/** The auth routes of one service. */
export function buildAuthRouter(
  o: RoutesConfig,
  { tokens, providers, middleware, failed, tracing, loginStarts }: AuthRouterParts,
  endLoggedOut: EndToken,
  /**
   * The routes of a feature the options turn on (the second factor's `/mfa/…`), taken before the providers' routes.
   */
  mountFeatures?: (router: Router) => void,
): Router {
  const router = new Router({ prefix: o.authRoutePath });
  const origin = o.origin;
  const routeConfig = { ...o, failed, tracing, loginStarts };
  mountFeatures?.(router);

  router.get('/list', (ctx) => {
    const details = ctx.query.details === '1' || ctx.query.details === 'true';
    writeJSON(
      ctx,
      200,
      providers.list().map((p) => (details ? { name: p.name, kind: p.kind ?? 'custom' } : p.name)),
    );
  });

  // The same rules as the route middleware: the validator, the provider still configured, an expired
  // cookie refreshed (or refused past maxSessionAge), basic auth. A user-bearing answer is never cached.
  router.get('/user', async (ctx) => {
    await middleware.auth(ctx, () => {
      ctx.set('Cache-Control', 'no-store');
      writeJSON(ctx, 200, getUserInfo(ctx));
      return Promise.resolve();
    });
  });

  router.get('/status', async (ctx) => {
    await middleware.trace(ctx, () => {
      const user = getUserInfo(ctx);
      ctx.set('Cache-Control', 'no-store');
      writeJSON(ctx, 200, user ? { status: 'logged in', user: user.name } : { status: 'not logged in' });
      return Promise.resolve();
    });
  });

  const endToken = tokenEnder(o, tokens, endLoggedOut);

  router.all('/logout', async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'method not allowed');
    await endToken(ctx);
    endSession(ctx, tokens);
  });

  router.all('/:provider/:action', async (ctx) => {
    const provider = providerNamed(ctx, providers, ctx.params.provider);
    refuseCrossSite(ctx, origin, provider, ctx.params.action);
    return providerRoute(ctx, routeConfig, provider, ctx.params.action, endToken);
  });

  // Two-segment actions (`register/options`): a provider's own routes only.
  router.all('/:provider/:action/:sub', async (ctx) => {
    const provider = providerNamed(ctx, providers, ctx.params.provider);
    if (ctx.method !== 'GET' && ctx.method !== 'POST' && ctx.method !== 'DELETE')
      throw new AuthError('method_not_allowed', 'method not allowed');
    refuseCrossSite(ctx, origin, provider, `${ctx.params.action}/${ctx.params.sub}`);
    return providerAction(ctx, provider, `${ctx.params.action}/${ctx.params.sub}`);
  });

  return router;
}
