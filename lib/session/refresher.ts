import { noTracing, type Tracing } from '../telemetry/types.js';
import { noEvents, type EventSink } from '../events/bus.js';
import { refreshEvent } from '../events/session-events.js';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { copyClaims, type Claims, type RequestToken } from './claims.js';
import type { RefreshCache } from './refresh-cache.js';
import { issuedAtS, type Revocations } from './revocation.js';
import type { SessionHooks } from './hooks.js';
import type { TokenService } from './token-service.js';

/** The options a refresh reads: the cache of refreshed tokens and the limits a session may not pass. */
export interface RefreshConfig {
  refreshCache: RefreshCache | undefined;
  tokenDurationMs: number;
  cookieDurationMs: number;
  maxSessionAgeMs: number | undefined;
}

/**
 * Re-issues expired cookie tokens: the same claims and `jti` with a fresh `exp` and fresh cookies, once
 * the idle timeout, the revocation check and `maxSessionAge` allow it.
 */
export class Refresher {
  // Refreshes under way, by the expired token's text: concurrent requests carrying one expired token
  // share one re-issue, however long the ClaimsUpdater takes (the refresh cache only helps afterwards).
  private readonly inFlight = new Map<string, Promise<Claims>>();

  constructor(
    private readonly o: RefreshConfig,
    private readonly tokens: TokenService,
    private readonly sessions: Revocations,
    /** Told of every refresh (the session list moves its `lastSeen`); undefined when no one listens. */
    private readonly hooks?: SessionHooks,
    private readonly events: EventSink = noEvents,
    private readonly tracing: Tracing = noTracing,
  ) {}

  /** The refreshed claims for an expired cookie token: cached, in flight, or re-issued on this request. */
  refresh(ctx: Context, rt: RequestToken): Promise<Claims> {
    const cached = this.o.refreshCache?.get(rt.token);
    if (cached) return Promise.resolve(cached);
    let pending = this.inFlight.get(rt.token);
    if (!pending) {
      const reissue = () => this.reissue(ctx, rt);
      pending = (
        this.tracing.on
          ? this.tracing.span('authkoa.refresh', { 'authkoa.provider': rt.claims.auth_provider?.name ?? '' }, reissue)
          : reissue()
      ).finally(() => this.inFlight.delete(rt.token));
      this.inFlight.set(rt.token, pending);
    }
    return pending;
  }

  /** Mints the refreshed token and sets its cookies on this request's response (the other waiters set none). */
  private async reissue(ctx: Context, rt: RequestToken): Promise<Claims> {
    const { o, tokens } = this;
    const claims = copyClaims(rt.claims);
    // First: a session ended from elsewhere is told as such (session_revoked) even when it also idled out.
    await this.sessions.check(claims);
    // The server-side idle timeout: a cookie lives cookieDuration past its token's issue, so a token
    // older than that can only be a copy replayed from elsewhere, whatever Max-Age the client kept.
    if (issuedAtS(claims, o.tokenDurationMs) * 1000 + o.cookieDurationMs < tokens.now() * 1000) {
      throw new AuthError('session_expired', 'session was idle for longer than cookieDuration');
    }
    if (o.maxSessionAgeMs !== undefined) {
      const start = claims.sess_start ?? claims.auth_time ?? claims.iat ?? 0;
      if ((tokens.now() - start) * 1000 > o.maxSessionAgeMs)
        throw new AuthError('session_expired', 'session is older than maxSessionAge');
    }
    // Same claims, same jti (so the XSRF value scripts hold stays valid), fresh exp and cookies.
    const refreshed = await tokens.set(ctx, { ...claims, exp: undefined, user: claims.user });
    o.refreshCache?.set(rt.token, refreshed);
    refreshEvent(this.events, ctx, refreshed);
    // The refresh stands whatever a feature makes of it: the hooks log their own failures.
    await this.hooks?.refreshed(ctx, refreshed);
    return refreshed;
  }
}
