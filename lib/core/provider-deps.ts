import type { Context } from 'koa';
import type { AvatarProxy } from '../avatar/proxy.js';
import type { InstanceEvents } from '../events/instance.js';
import { safeRedirect } from '../http/redirect.js';
import type { ResolvedOptions } from '../options/resolved.js';
import { completeLogin, endSession, type SecondStepGate, type SessionStarter } from '../session/login.js';
import { signerOf } from '../session/signer.js';
import type { TokenService } from '../session/token-service.js';
import type { SharedState } from '../state/shared.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { InstanceTelemetry } from '../telemetry/instance.js';
import { providerUserId, type User } from '../user.js';
import type { ConnectionShare } from '../util/connections.js';
import type { StorePolicy } from '../util/store-policy.js';
import type { KindDeps, KindTokens, ProviderCapabilities, ProviderDeps } from '../providers/core/contract.js';
import { checkCredentials } from '../providers/core/credentials.js';

/** What providerDeps() is made of besides the options. */
export interface DepsParts {
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
  loginSession: ProviderCapabilities['loginSession'];
  /** The features' login gates (the second factor's among them): what decides a second step. */
  gate: SecondStepGate | undefined;
  startSession: SessionStarter;
  /** After a credential change of the request's user: their other sessions end (endOtherSessionsOnFactorChange). */
  factorChanged: (ctx: Context) => Promise<void>;
  /** What a configured feature offers provider kinds (Feature.provides), by its key. */
  featureService: ProviderCapabilities['featureService'];
}

/** The login context and the capabilities of one instance, made of its core parts; never the secrets. */
export function providerDeps(o: ResolvedOptions, parts: DepsParts): KindDeps {
  return { context: loginContext(o, parts), capabilities: capabilities(o, parts) };
}

function loginContext(o: ResolvedOptions, parts: DepsParts): ProviderDeps {
  const { tokenService, avatarProxy, state } = parts;
  return {
    completeLogin: (ctx, login) => completeLogin(ctx, login, o, parts.startSession, avatarProxy, parts.gate),
    endSession: (ctx) => endSession(ctx, tokenService),
    userId: (provider, raw) => providerUserId(provider, raw, { keepHashed: o.keepHashedIds }),
    tokenService: kindTokens(tokenService),
    url: o.url,
    routeURL: (provider, action) => `${o.url}${o.authRoutePath}/${encodeURIComponent(provider)}/${action}`,
    callbackURL: (ctx) => o.url + requestPath(ctx).replace(/\/[^/]*$/, '/callback'),
    safeRedirect: (from) => safeRedirect(from, o.url, o.allowedRedirects),
    cookies: { name: o.jwtCookieName, secure: o.secureCookies },
    clock: o.clock,
    logger: o.logger,
    tracing: parts.telemetry,
    events: parts.events.bus,
    stateStore: state.store,
    limiter: state.limiter,
  };
}

function capabilities(o: ResolvedOptions, parts: DepsParts): ProviderCapabilities {
  const { throttle } = parts;
  return {
    // A refusal is told here, where the typed name is known; the route then does not tell it again.
    checkCredentials: (ctx, scope, user, check) =>
      checkCredentials(ctx, throttle(scope), user, check).catch((err: unknown) => {
        parts.events.failed.tell(ctx, scope, parts.kindOf(scope), err, user);
        throw err;
      }),
    throttle,
    signer: o.signing && signerOf(o.signing),
    sessionUser: parts.sessionUser,
    loginSession: parts.loginSession,
    factorChanged: parts.factorChanged,
    avatarProxy: parts.avatarProxy,
    connections: parts.connections,
    stores: parts.stores,
    featureService: parts.featureService,
  };
}

/** The token calls a kind may make, and no other: a kind cannot set or clear the session cookies itself. */
function kindTokens(t: TokenService): KindTokens {
  return {
    create: (claims) => t.create(claims),
    mint: (claims) => t.mint(claims),
    parse: (token) => t.parse(token),
    isExpired: (claims) => t.isExpired(claims),
    now: t.now,
    presented: (ctx) => t.presented(ctx),
  };
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
