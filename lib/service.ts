import type { Context } from 'koa';
import { coreParts, sessionParts, type CoreParts, type SessionParts } from './core/parts.js';
import { logoutEvent } from './events/session-events.js';
import { FeatureSet } from './features/set.js';
import { featureCapabilities } from './core/feature-capabilities.js';
import { BUILT_IN_EVENTS, configuredFeatures, FEATURE_KINDS } from './core/features.js';
import { resolveAuthKoaOptions } from './core/options.js';
import { requestHandler } from './core/entry.js';
import { makeInstance, type AuthKoa } from './instance.js';
import { createMiddleware } from './middleware.js';
import { refusedOptions } from './options/refused.js';
import type { ResolvedOptions } from './options/resolved.js';
import type { AuthKoaOptions } from './options/types.js';
import type { ServiceKey } from './util/service-key.js';
import { providerDeps } from './core/provider-deps.js';
import { planProviders } from './providers/core/resolve.js';
import { Authenticator } from './session/authenticator.js';
import type { Claims } from './session/claims.js';
import type { IdentifiedLogin } from './session/login.js';
import { startService } from './core/start-up.js';

/**
 * Builds the authentication service. Options are validated here, once: a bad option throws a
 * TypeError naming it. The returned middleware answers `<authRoutePath>/*` and `<avatarRoutePath>/*`
 * and passes every other request on untouched, without token work. The composition root: the core parts
 * (core/parts.ts), the features in their loop (features/set.ts), the providers, the routes.
 */
export function authKoa(opts: AuthKoaOptions): AuthKoa {
  const { o, plans } = checkedOptions(opts);
  const core = coreParts(o);
  const login = sessionParts(o, core);
  const features = featureSet(o, core, login);
  const { events, telemetry, tokenService, providers, hooks } = core;
  const gate = { intercept: (ctx: Context, attempt: IdentifiedLogin) => features.gate(ctx, attempt) };
  const factorChanged = async (ctx: Context) => {
    const me = await login.session(ctx);
    await login.factorChanged(me.user.id, me.claims.sid);
  };
  const sessionUser = async (ctx: Context) => (await login.session(ctx)).user;
  const featureService = <T>(key: ServiceKey<T>) => features.provided(key);
  const session = { sessionUser, loginSession: login.session, startSession: login.begin, factorChanged };
  const deps = providerDeps(o, { ...core, ...session, kindOf, gate, featureService });
  const startUp = startService(o, { ...core, plans, deps, features, events: events.bus });
  const waitForStart = startUp.waitForStart;
  const basicThrottle = core.throttle('basic');
  const authParts = {
    tokens: tokenService,
    providers,
    sessions: core.revocations,
    watch: core.watch,
    hooks,
    credentials: core.credentials,
    waitForStart,
    basicThrottle,
  };
  const users = new Authenticator(o, { ...authParts, events: events.bus, tracing: telemetry });
  login.authenticate(users);
  const middleware = createMiddleware(o, users);
  const endToken = async (claims: Claims, ctx: Context) => {
    logoutEvent(events.bus, ctx, claims);
    await core.revocations.endToken(claims);
    await hooks.ended(ctx, claims);
  };
  // Imported while start-up runs (`ready` waits for it): @koa/router takes longer to import than Koa itself.
  const loginStarts = (ctx: Context, provider: string) => features.loginStarts(ctx, provider);
  const routeParts = {
    tokens: tokenService,
    providers,
    middleware,
    failed: events.failed,
    tracing: telemetry,
    loginStarts,
  };
  const mount = features.mount.bind(features);
  const routing = import('./routes.js').then((m) => m.authRoute(o, routeParts, endToken, mount));
  const settled = (ctx: Context) => events.bus.settled(ctx);
  const site = { names: features.siteDocuments(), serve: (ctx: Context, name: string) => features.site(ctx, name) };
  const entry = { routing, avatarProxy: core.avatarProxy, waitForStart, pending: core.pending, settled, site };
  const service = requestHandler(o, entry);
  const close = async () => {
    await startUp.settled; // a failed start has already closed what it had started
    await Promise.allSettled(providers.list().map((p) => p.close?.() ?? Promise.resolve()));
    core.watch?.close();
    await Promise.all([core.avatarProxy.close(), core.state.close(), features.close(), events.close()]);
  };
  const starting = Promise.all([startUp.starting, routing]).then(() => undefined);
  const parts = { middleware, tokenService, avatarProxy: core.avatarProxy, providers, options: o, features };
  return makeInstance(service, { ...parts, endSessions: login.endSessions, starting, events: events.bus, close });

  function kindOf(name: string): string {
    return providers.get(name)?.kind ?? 'custom';
  }
}

/** The options resolved and the providers planned: everything checked before anything starts. */
function checkedOptions(opts: AuthKoaOptions): { o: ResolvedOptions; plans: ReturnType<typeof planProviders> } {
  try {
    const o = resolveAuthKoaOptions(opts);
    return { o, plans: planProviders(o.providers, FEATURE_KINDS) };
  } catch (err) {
    throw refusedOptions(err, (opts as Partial<AuthKoaOptions> | null)?.logger, authKoa);
  }
}

/** The application's features and the built-in ones the options turn on, as one set (core/features.ts). */
function featureSet(o: ResolvedOptions, core: CoreParts, login: SessionParts): FeatureSet {
  const { state, events, hooks, credentials } = core;
  // Known to `auth.on()` whether or not their options are set, as when they were core events.
  events.bus.declare(BUILT_IN_EVENTS);
  try {
    const modules = configuredFeatures(o.features, o.featureOptions, featureCapabilities(o, core, login));
    const { url, origin, authRoutePath, logger, clock } = o;
    const context = { url, origin, authRoutePath, logger, clock, stateStore: state.store, session: login.session };
    return new FeatureSet(modules, { ...context, events: events.bus, hooks, credentials });
  } catch (err) {
    throw refusedOptions(err, o.logger, authKoa);
  }
}
