import type { Context } from 'koa';
import { createAvatarProxy, type AvatarProxy, type AvatarProxyImpl } from './avatar/proxy.js';
import { readParams } from './http/body.js';
import { AuthError } from './errors.js';
import { completeLogin, endSession, sessionFlag, startSession, type IdentifiedLogin, type SecondStepGate, type SessionStarter } from './session/login.js';
import { randomId, type Claims } from './session/claims.js';
import { readCookie } from './session/transport.js';
import { createMiddleware } from './middleware.js';
import { makeInstance, type AuthKoa } from './instance.js';
import { SessionRegistry } from './session/devices.js';
import type { AuthKoaOptions } from './options/types.js';
import type { ResolvedOptions } from './options/resolved.js';
import { resolveOptions } from './options/resolve.js';
import { refusedOptions } from './options/refused.js';
import { checkSecretReader } from './options/secret.js';
import { safeRedirect } from './http/redirect.js';
import type { ProviderDeps } from './providers/core/contract.js';
import { signerOf } from './session/signer.js';
import { planProviders, ProviderRegistry } from './providers/core/resolve.js';
import { sharedState, type SharedState } from './state/shared.js';
import type { CredentialThrottle } from './state/throttle.js';
import { checkCredentials } from './providers/core/credentials.js';
import { Authenticator } from './session/authenticator.js';
import { revocations } from './session/revocation.js';
import { isStoreTarget, loadStoreBackend } from './stores/open.js';
import { TokenService } from './session/token-service.js';
import { providerUserId, type User } from './user.js';
import { loadWithPackage } from './util/optional.js';
import { loadMfa } from './mfa/load.js';
import { ConnectionShare } from './util/connections.js';
import { createEvents, type InstanceEvents } from './events/instance.js';
import type { AuthEventBus } from './events/bus.js';
import { InstanceTelemetry } from './telemetry/instance.js';
import { loginEvent, logoutEvent } from './events/session-events.js';
import { configuredFeatures } from './features/table.js';
import { FeatureSet } from './features/set.js';
import type { FeatureModule } from './features/contract.js';
import { mfaThrottle, throttlesPerScope } from './state/throttles.js';
import { PendingAppErrors } from './http/pending-errors.js';
import { requestHandler } from './http/entry.js';
import { storePolicy, type StorePolicy } from './util/store-policy.js';

/**
 * Builds the authentication service. Options are validated here, once: a bad option throws a
 * TypeError naming it. The returned middleware answers `<authRoutePath>/*` and `<avatarRoutePath>/*`
 * and passes every other request on untouched, without token work. Each module is handed the options
 * as the slice it declares (TokenConfig, TransportConfig, AuthenticationConfig, …).
 */
export function authKoa(opts: AuthKoaOptions): AuthKoa {
  let o: ResolvedOptions;
  let plans: ReturnType<typeof planProviders>;
  try {
    o = resolveOptions(opts);
    // Everything that can be checked without loading code is checked here, before anything starts.
    plans = planProviders(o.providers);
  } catch (err) {
    throw refusedOptions(err, (opts as Partial<AuthKoaOptions> | null)?.logger, authKoa);
  }
  const refused = (err: unknown) => refusedOptions(err, o.logger, authKoa);
  // OpenTelemetry when installed and on (found at start-up); until then, and without it, nothing is recorded.
  const telemetry = new InstanceTelemetry();
  const tokenService = new TokenService(o, telemetry);
  // Stores of this instance on one database URI share a pool (PostgreSQL); closed with the last of them.
  const connections = new ConnectionShare();
  // How the stores are checked at start-up; a failure the app starts with waits here for its Koa app.
  const pending = new PendingAppErrors();
  const stores = storePolicy(o, pending);
  const avatarProxy = createAvatarProxy({ ...o.avatarProxyOptions, connections, tracing: telemetry, store: o.avatarStore, url: o.url, routePath: o.avatarRoutePath, resizeLimit: o.avatarResizeLimit, allowPrivate: o.avatarAllowPrivate, logger: o.logger, policy: stores });
  const state = sharedState(o.stateStore, { clock: o.clock, option: 'stateStore', connections, tracing: telemetry, policy: stores });
  const events = createEvents(o, FeatureSet.eventTypes(o.features));
  const throttle = throttlesPerScope(state, o.loginThrottle, o.clock, events.bus);
  const sessions = revocations(state.store, o.clock, Math.max(o.cookieDurationMs, o.tokenDurationMs), o.tokenDurationMs);
  const registry = new SessionRegistry(o, state.store, sessions, events.bus);
  const providers = new ProviderRegistry();
  const kindOf = (name: string) => providers.get(name)?.kind ?? 'custom';
  const begin: SessionStarter = async (ctx, login) => {
    const claims = await startSession(ctx, login, tokenService, registry);
    loginEvent(events.bus, ctx, kindOf(login.provider), claims);
    return claims;
  };
  // Set once the authenticator exists (it needs the providers, which need these deps).
  let users: Authenticator | undefined;
  // What manages factors, sessions and passkeys acts for a full login only, never basic auth (full-login.ts).
  const session = (ctx: Context) => (users ? users.loginSession(ctx) : Promise.reject(new Error('not ready')));
  const sessionUser = async (ctx: Context) => (await session(ctx)).user;
  const factorChanged = (userId: string, keep: string | undefined) => (o.endOtherSessionsOnFactorChange ? registry.revokeAll(userId, keep) : Promise.resolve());
  const mfa = o.mfa
    ? loadMfa(o.mfa, o, { connections, stores, tokens: tokenService, startSession: begin, state: state.store, session, throttle: mfaThrottle(state, throttle, o.clock, events.bus), events: events.bus, secondFactors: () => providers.secondFactors(), factorChanged })
    : undefined;
  let modules: FeatureModule[];
  try {
    modules = configuredFeatures(o.features, { ...o, registry, session, tokens: tokenService, mfa });
  } catch (err) {
    throw refused(err);
  }
  const features = new FeatureSet(modules, { ...o, stateStore: state.store, session, events: events.bus });
  const gate = { intercept: (ctx: Context, login: IdentifiedLogin) => features.gate(ctx, login) };
  const deps = providerDeps(o, { events, telemetry, stores, kindOf, connections, tokenService, avatarProxy, state, throttle, gate, sessionUser, startSession: begin, factorChanged: async (ctx) => {
    const me = await session(ctx);
    await factorChanged(me.user.id, me.claims.sid);
  } });
  const startUp = startService(o, { plans, providers, deps, state, avatarProxy, features, telemetry, events: events.bus });
  const waitForStart = startUp.waitForStart;
  users = new Authenticator(o, { tokens: tokenService, providers, sessions, registry, waitForStart, basicThrottle: throttle('basic'), events: events.bus, tracing: telemetry });
  const middleware = createMiddleware(o, users);
  const endToken = async (claims: Claims, ctx: Context) => {
    logoutEvent(events.bus, ctx, claims);
    await sessions.endToken(claims);
    await registry.forget(claims);
  };
  // Imported while start-up runs (`ready` waits for it): @koa/router takes longer to import than Koa itself.
  const routeParts = { tokens: tokenService, providers, middleware, failed: events.failed, tracing: telemetry };
  const routing = import('./routes.js').then((m) => m.authRoute(o, routeParts, endToken, (router) => features.mount(router)));
  const service = requestHandler(o, { routing, avatarProxy, waitForStart, pending });
  const closeAll = async () => {
    await startUp.settled; // a failed start has already closed what it had started
    await Promise.allSettled(providers.list().map((p) => p.close?.()));
    await Promise.all([avatarProxy.close(), state.close(), features.close(), events.close()]);
  };
  const starting = Promise.all([startUp.starting, routing]).then(() => undefined);
  const parts = { middleware, tokenService, avatarProxy, providers, options: o, starting, registry, features };
  return makeInstance(service, { ...parts, events: events.bus, close: closeAll });
}

/** What providerDeps() is made of besides the options. */
interface DepsParts {
  events: InstanceEvents;
  telemetry: InstanceTelemetry;
  stores: StorePolicy;
  /** A configured provider's kind, by name. */
  kindOf: (name: string) => string;
  connections: ConnectionShare;
  tokenService: TokenService;
  avatarProxy: AvatarProxy;
  state: SharedState;
  throttle: (scope: string) => CredentialThrottle | undefined;
  sessionUser: (ctx: Context) => Promise<User>;
  /** The second factor, when the `mfa` option is set. */
  gate: SecondStepGate | undefined;
  startSession: SessionStarter;
  /** After a credential change of the request's user: their other sessions end (endOtherSessionsOnFactorChange). */
  factorChanged: (ctx: Context) => Promise<void>;
}

/** What the service hands every provider: the narrow context of ProviderDeps, never the secrets. */
function providerDeps(o: ResolvedOptions, parts: DepsParts): ProviderDeps {
  const { tokenService, avatarProxy, state, throttle } = parts;
  return {
    tokenService,
    avatarProxy,
    logger: o.logger,
    url: o.url,
    clock: o.clock,
    stateStore: state.store,
    connections: parts.connections,
    stores: parts.stores,
    limiter: state.limiter,
    sessionUser: parts.sessionUser,
    userId: (provider, raw) => providerUserId(provider, raw, { keepHashed: o.keepHashedIds }),
    throttle,
    // A refusal is told here, where the typed name is known; the route then does not tell it again.
    checkCredentials: (ctx, scope, user, check) =>
      checkCredentials(ctx, throttle(scope), user, check).catch((err: unknown) => {
        parts.events.failed.tell(ctx, scope, parts.kindOf(scope), err, user);
        throw err;
      }),
    events: parts.events.bus,
    tracing: parts.telemetry,
    cookies: { name: o.jwtCookieName, secure: o.secureCookies },
    routeURL: (provider, action) => `${o.url}${o.authRoutePath}/${encodeURIComponent(provider)}/${action}`,
    completeLogin: (ctx, login) => completeLogin(ctx, login, o, parts.startSession, avatarProxy, parts.gate),
    factorChanged: parts.factorChanged,
    callbackURL: (ctx) => o.url + requestPath(ctx).replace(/\/[^/]*$/, '/callback'),
    safeRedirect: (from) => safeRedirect(from, o.url, o.allowedRedirects),
    sessionOnly: (ctx) => sessionFlag(ctx.query) ?? false,
    readParams,
    sessionFlag,
    readCookie: (ctx, name) => readCookie(ctx.get('cookie'), name),
    randomId,
    endSession: (ctx) => endSession(ctx, tokenService),
    signer: o.signing && signerOf(o.signing),
  };
}

/** Start-up under way, as the service follows it. */
interface StartUp {
  /** Rejects with the start-up error (after closing what had started); `ready` is the caller's copy. */
  starting: Promise<void>;
  /** Resolves once start-up has settled, either way: what close() waits for. */
  settled: Promise<void>;
  /** Undefined once started; until then a promise a request waits for, rejected with a 503 after a failure. */
  waitForStart: () => Promise<void> | undefined;
}

interface StartParts {
  plans: ReturnType<typeof planProviders>;
  providers: ProviderRegistry;
  deps: ProviderDeps;
  state: SharedState;
  avatarProxy: AvatarProxyImpl;
  features: FeatureSet;
  telemetry: InstanceTelemetry;
  events: AuthEventBus;
}

/**
 * Starts the service: a failure is logged and closes the avatar proxy and the stores again. `ready`
 * rejects at once, without waiting for that: a store still trying to connect may take its own timeout
 * to let go, and the bound on start-up is `storeCheckTimeout`. close() waits for it.
 */
function startService(o: ResolvedOptions, parts: StartParts): StartUp {
  let closing: Promise<unknown> = Promise.resolve();
  const starting = start(o, parts).catch((err: Error) => {
    o.logger.error(`authkoa did not start: ${err.message}`, { code: 'not_started' });
    closing = Promise.allSettled([parts.avatarProxy.close(), parts.state.close(), parts.features.close()]);
    throw err;
  });
  // The service's own view of start-up (`ready` is the caller's handle): once it succeeded there is
  // nothing to wait for; until then a request waits for it, and after a failure it gets a 503.
  let started = false;
  const settled = starting.then(
    () => void (started = true),
    () => closing.then(() => undefined),
  );
  const notStarted = starting.then(
    () => undefined,
    () => Promise.reject(new AuthError('not_started', 'authentication is not available: the service failed to start')),
  );
  notStarted.catch(() => undefined); // a rejection requests receive, not one to report on its own
  return { starting, settled, waitForStart: () => (started ? undefined : notStarted) };
}

/**
 * The asynchronous half of start-up: the optional packages and backend modules the options need are
 * loaded (a missing one rejects naming it), then the providers are created in order.
 */
async function start(o: ResolvedOptions, { plans, providers, deps, state, features, avatarProxy, telemetry, events }: StartParts): Promise<void> {
  const checks: Promise<unknown>[] = [state.start(), checkSecretReader(o), telemetry.start(o.telemetry, events), features.start()];
  if (isStoreTarget(o.avatarStore)) {
    checks.push(loadStoreBackend(o.avatarStore).then(() => avatarProxy.start()));
    // Only resizing decodes images (in a worker, which imports jimp); identicons are encoded without it.
    if (o.avatarResizeLimit > 0) checks.push(loadWithPackage('jimp', 'avatarResizeLimit', async () => import.meta.resolve('jimp')));
  }
  await Promise.all(checks);
  await providers.build(plans, deps);
  // A provider named as a feature's prefix (`sessions`, `mfa`, an application's own) could never be reached.
  features.checkProviders(providers.list().map((p) => p.name));
}

/** The full request path, before any mount helper stripped its prefix. */
function requestPath(ctx: Context): string {
  const original = ctx.originalUrl || ctx.url;
  // An absolute-form target (`GET http://other.example/auth/x/login`) keeps only its path: the URLs
  // handed out are `url` + a path, never a host the request named.
  if (original.charCodeAt(0) !== 47 /* / */) return new URL(original, 'http://invalid').pathname;
  const q = original.indexOf('?');
  return q < 0 ? original : original.slice(0, q);
}
