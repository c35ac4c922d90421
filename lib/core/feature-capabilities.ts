import type { CapabilityName, FeatureCapabilities } from '../features/capabilities.js';
import { safeRedirect } from '../http/redirect.js';
import type { ResolvedOptions } from '../options/resolved.js';
import { publicKeySet } from '../session/signing.js';
import { signerOf } from '../session/signer.js';
import type { CoreParts, SessionParts } from './parts.js';

/** Builds one capability from the instance's parts. */
type Builders = { readonly [K in CapabilityName]: () => FeatureCapabilities[K] };

/**
 * The capabilities a built-in feature asks for (features/capabilities.ts), each built when asked, member by member,
 * as providerDeps() builds a kind's: a feature gets what it named, a function or a plain value, never the options
 * object, the secret or a part with a secret inside.
 */
export function featureCapabilities(
  o: ResolvedOptions,
  core: CoreParts,
  login: SessionParts,
): <N extends CapabilityName>(name: N) => FeatureCapabilities[N] {
  const { events, providers, hooks, tokenService: tokens } = core;
  const build: Builders = {
    sessionTimes: () => ({
      cookieDurationMs: o.cookieDurationMs,
      tokenDurationMs: o.tokenDurationMs,
      maxSessionAgeMs: o.maxSessionAgeMs,
      maxSessionsPerUser: o.maxSessionsPerUser,
    }),
    endSessions: () => (userId, keep) => login.endSessions(userId, keep),
    factorChanged: () => (userId, keep) => login.factorChanged(userId, keep),
    coreEvents: () => ({ has: (type) => events.bus.has(type), emit: (type, f, ctx) => events.bus.emit(type, f, ctx) }),
    eventTap: () => ({ tap: (listener) => events.bus.tap(listener), untap: (listener) => events.bus.untap(listener) }),
    tracing: () => core.telemetry,
    publicKeys: () => o.signing && publicKeySet(o.signing),
    signer: () => o.signing && signerOf(o.signing),
    issuer: () => o.issuer,
    tokens: () => tokens,
    startSession: () => login.begin,
    navigationSession: () => login.navigationSession,
    cookieSession: () => login.cookieSession,
    presentedToken: () => (ctx) => tokens.presented(ctx),
    throttle: () => core.throttle,
    providers: () => ({
      list: () => providers.list(),
      get: (name) => providers.get(name),
      has: (name) => providers.has(name),
      secondFactors: () => providers.secondFactors(),
    }),
    featureHooks: () => ({
      userDeleted: (userId) => hooks.userDeleted(userId),
      credentialsRevoked: (userId, reason) => hooks.credentialsRevoked(userId, reason),
    }),
    stores: () => ({ connections: core.connections, policy: core.stores }),
    cookies: () => ({ name: o.jwtCookieName, secure: o.secureCookies }),
    safeRedirect: () => (from) => safeRedirect(from, o.url, o.allowedRedirects),
    strictRevocation: () => o.strictRevocation,
    loginConfig: () => ({
      url: o.url,
      allowedRedirects: o.allowedRedirects,
      postAuthHook: o.postAuthHook,
      logger: o.logger,
    }),
  };
  return (name) => build[name]();
}
