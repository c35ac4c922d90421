import type { Context } from 'koa';
import type { Claims } from './claims.js';

/**
 * What the core tells of a session's life, after the fact: the login, the refresh and the logout call these,
 * and so does the end of a user's sessions (a factor change, `auth.revokeSessions`). The configured features
 * answer them (Feature.sessionStarted, …; features/hooks.ts); the core names none of them. Each call
 * resolves, whatever a feature does: a failure is logged, the login or the logout goes on.
 */
export interface SessionHooks {
  /** A session was issued (a login's last step): its claims, with `sid` and `auth_time`. */
  started(ctx: Context, claims: Claims): Promise<void>;
  /** An expired cookie token was re-issued: the new claims. */
  refreshed(ctx: Context, claims: Claims): Promise<void>;
  /** A logout ended the session of these claims. */
  ended(ctx: Context, claims: Claims): Promise<void>;
  /** Every session of `userId` issued up to now was revoked, but `keptSid` when one was kept. */
  revoked(userId: string, keptSid: string | undefined): Promise<void>;
}
