import type { Context } from 'koa';
import type { AvatarProxy } from '../../avatar/proxy.js';
import type { InstanceEvents } from '../../events/instance.js';
import { readParams } from '../../http/body.js';
import { safeRedirect } from '../../http/redirect.js';
import type { ResolvedOptions } from '../../options/resolved.js';
import { randomId } from '../../session/claims.js';
import {
  completeLogin,
  endSession,
  sessionFlag,
  type SecondStepGate,
  type SessionStarter,
} from '../../session/login.js';
import { signerOf } from '../../session/signer.js';
import type { TokenService } from '../../session/token-service.js';
import { readCookie } from '../../session/transport.js';
import type { SharedState } from '../../state/shared.js';
import type { CredentialThrottle } from '../../state/throttle.js';
import type { InstanceTelemetry } from '../../telemetry/instance.js';
import { providerUserId, type User } from '../../user.js';
import type { ConnectionShare } from '../../util/connections.js';
import type { StorePolicy } from '../../util/store-policy.js';
import type { ProviderDeps } from './contract.js';
import { checkCredentials } from './credentials.js';

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
  /** The second factor, when the `mfa` option is set. */
  gate: SecondStepGate | undefined;
  startSession: SessionStarter;
  /** After a credential change of the request's user: their other sessions end (endOtherSessionsOnFactorChange). */
  factorChanged: (ctx: Context) => Promise<void>;
}

/** What the service hands every provider: the narrow context of ProviderDeps, never the secrets. */
export function providerDeps(o: ResolvedOptions, parts: DepsParts): ProviderDeps {
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

/** The full request path, before any mount helper stripped its prefix. */
function requestPath(ctx: Context): string {
  const original = ctx.originalUrl || ctx.url;
  // An absolute-form target (`GET http://other.example/auth/x/login`) keeps only its path: the URLs
  // handed out are `url` + a path, never a host the request named.
  if (original.charCodeAt(0) !== 47 /* / */) return new URL(original, 'http://invalid').pathname;
  const q = original.indexOf('?');
  return q < 0 ? original : original.slice(0, q);
}
